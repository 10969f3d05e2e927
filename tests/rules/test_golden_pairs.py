"""Each golden `eval --json` file (tests/golden/*.eval.json) paired with a hand computation of the same game.

A golden file is the program's own past output: alone it only says "nothing changed". Here every number
of each bundled example was worked out from the record, its board JSON and shared/RULES.md, never read
off the program: the moves are cited by index (0-based), the arithmetic is written beside the number.
The farm points are the group sizes of a player's farms at the moment each was placed (S-F1), in the
order placed. Neighbours are the six axial offsets (1,0) (1,-1) (0,-1) (-1,0) (-1,1) (0,1).

The engine's `eval --json` must equal these numbers (so a golden file rewritten with a wrong number by
`tools/update_goldens.py` is caught too: the golden file must equal them as well). When an example or the
rules it plays change, redo its entry: `python tools/hand_facts.py EXAMPLE` lists the facts move by move
from the record, the board and the cards as re-stated by hand, without the engine; check them against the
record and write each number with its arithmetic.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
Hand = dict[str, Any]

# ---------------------------------------------------------------------------------------------------------
# scotland-2p: Ann and Bob; 32 neutral tiles on the marked hexes (S-U2); 34 moves each.
SCOTLAND_2P: Hand = {
    "finished": True,
    "breakdown": {
        "Ann": {
            # farms (S-F1): 1+1+2+1+2+2+1+3+2+1+4+5+1+2+3+1+2+1+3+4+2+1 = 45
            "farms": 45,
            # harbours (S-H1): moves 0 (2,15), 2 (-3,19), 10 (5,12), 20 (-1,12), 38 (0,6), 48 (9,2), 58 (8,1)
            "harbours": 7,
            # areas (S-A3; alone = first + second): Leith m0 alone 5+3=8 (the other hex neutral, S-A4),
            # Stranraer m2 alone 8, Dundee m10 alone 8, Aviemore m16 alone 8, Oban m20 size 1 influence 3,
            # Tobermory m30 size 1: 2, Ayr m36 Bob 3 > Ann 2: second 3, Portree m41 Bob 2 > Ann 1: second 3,
            # Wick m49 Ann 2 > Bob 1: first 5, Perth m64 (third hex neutral) Ann 3 > Bob 2: first 8,
            # Inverness m66 Ann 4 > Bob 3: first 8. 8+8+8+8+3+2+3+3+5+8+8 = 64
            "areas": 64,
            "incomplete_areas": 1,  # S-E1: Thurso (8,1) settlement:1 (Thurso never completed)
            # castles (S-E2): Ardvreck, Balmoral, Glamis, Inveraray, Edinburgh, Culzean, Hermitage = 7 x 5
            "castles": 35,
            # missions (S-E3; 2 players): Crown of Scotland 6 (Edinburgh is hers), Castle guard 5 (21 tiles
            # next to a castle >= 21 - 2*0*(-1) = 21), Clan of the glens 0 (largest food group 3 < 8 - 2 = 6),
            # Chieftain 4 (areas won: Leith, Stranraer, Dundee, Aviemore, Oban, Tobermory, Wick, Perth,
            # Inverness = 9 >= 1 and > Bob's 7: Fort William, Ullapool, Kirkcudbright, Ayr, Portree, Aberdeen,
            # Kelso), Heartland 0 (largest farm group 5 < 6), Cathedral gift 3: 6+5+0+4+0+3 = 18
            "missions": 18,
        },
        "Bob": {
            "farms": 59,  # 1+1+1+2+2+3+1+3+1+2+2+3+4+3+5+4+6+7+5+1+1+1 = 59
            "harbours": 3,  # moves 27, 35, 51 = 3 x 1
            # Fort William m15 alone (other hex neutral) 8, Ullapool m27 size 1: 4, Kirkcudbright m29 size 1:
            # 4, Ayr m36 first 5, Portree m41 first 5, Wick m49 second 3, Aberdeen m55 alone (third hex
            # neutral) 8+5=13, Kelso m61 alone 13, Perth m64 second 5, Inverness m66 second 5:
            # 8+4+4+5+5+3+13+13+5+5 = 65
            "areas": 65,
            "incomplete_areas": 0,
            "castles": 25,  # Eilean Donan, Urquhart, Dunnottar, Stirling, Caerlaverock = 5 x 5
            # Cathedral gift 3 x 3, Coastline 0 (19 tiles by the sea < 22 - 2*0*(-1) = 22), Harbour master 0
            # (3 tiles on harbours < 8 - 2 = 6), Borderlands 0 (8 castles touched < 14 - 2 = 12), Power of the
            # north 5 (largest energy group 7 >= 6): 9+5 = 14
            "missions": 14,
        },
    },
    # S-E4: 45+7+64+1+35+18 = 170 > 59+3+65+0+25+14 = 166: Ann wins outright.
    "scores": {"Ann": 170, "Bob": 166},
    "winners": ["Ann"],
    "castles": {"Ardvreck": "Ann", "Eilean Donan": "Bob", "Urquhart": "Bob", "Balmoral": "Ann", "Dunnottar": "Bob",
                "Glamis": "Ann", "Inveraray": "Ann", "Stirling": "Bob", "Edinburgh": "Ann", "Culzean": "Ann",
                "Hermitage": "Ann", "Caerlaverock": "Bob"},
    # Ardvreck: Bob's from move 11 (S-K2); Ann's energy m46 ties 1-1 with a farm each (S-K5: Bob keeps);
    # Ann's energy m50 makes it 2 tiles to 1 (S-K3): Ann takes it.
    # S-M1: each first touch of a cathedral draws the top card of setup.decks.mission, in move order:
    # m5 Bob Glasgow, m7 Bob Dornoch, m10 Ann St Andrews, m18 Ann Glasgow, m21 Bob Elgin and St Machar's (two
    # cards, board order), m22 Ann Whithorn, m23 Bob Dunkeld, m25 Bob Dunblane, m32 Ann Dunblane, m56 Ann
    # Dornoch, m63 Bob St Andrews, m64 Ann Dunkeld.
    "cards": {"Ann": ["Crown of Scotland", "Castle guard", "Clan of the glens", "Chieftain", "Heartland",
                      "Cathedral gift"],
              "Bob": ["Cathedral gift", "Cathedral gift", "Coastline", "Harbour master", "Borderlands",
                      "Cathedral gift", "Power of the north"]},
}

# scotland-3p: Ann, Bob, Cat; no neutral tiles; 34 moves each.
SCOTLAND_3P: Hand = {
    "finished": True,
    "breakdown": {
        "Ann": {
            "farms": 60,  # 1+1+1+2+3+2+3+1+2+4+3+1+4+2+3+4+5+6+7+1+1+2+1 = 60
            "harbours": 5,  # moves 0, 12, 30, 36, 51
            # Ullapool m0 size 1: 2; Dundee m16 Bob 3 > Ann 1: 3; Kirkcudbright m21 size 1: 4; Ayr m35 Ann 2 =
            # Cat 2, Cat completed: the completer loses the tie (S-A2): Ann 5; Portree m42 Cat 3 = Ann 3, Ann
            # completed: Ann 3; Wick m52 Ann 3 > Bob 2: 5; Kelso m80 Cat 5 > Ann 1: 5; Dumfries m89 Ann 3 >
            # Bob 2 = Cat 2: 8; Aberdeen m92 Ann 6 > Cat 1: 8. 2+3+4+5+3+5+5+8+8 = 43
            "areas": 43,
            "incomplete_areas": 1,  # S-E1: Perth (4,12) settlement:1
            "castles": 25,  # Ardvreck, Eilean Donan, Urquhart, Culzean, Caerlaverock = 5 x 5
            # 3 players: Town builder 4 (settlements in 10 areas >= 10 - 1*0 = 10), Crown of Scotland 0
            # (Edinburgh: Cat), Borderlands 0 (8 castles touched < 14 - 3 = 11), Stirling bridge 0 (Cat's),
            # Chieftain 4 (areas won: Kirkcudbright, Ayr, Wick, Dumfries, Aberdeen and Ullapool = 6 >= 1, more
            # than Bob's 5 and Cat's 5), Heartland 5 (largest farm group, food, 7 >= 6): 4+4+5 = 13
            "missions": 13,
        },
        "Bob": {
            "farms": 45,  # 1+2+3+1+4+2+3+1+5+1+2+3+4+1+2+1+1+1+1+2+3+1 = 45
            "harbours": 2,  # moves 7, 19
            # Tobermory m4 size 1: 4; Stranraer m8 Cat 4 > Bob 1: 3; Dundee m16 Bob 3 > Ann 1: 5; Leith m28
            # Bob 3 > Cat 1: 5; Wick m52: 3; Fort William m61 Cat 2 > Bob 1: 3; Thurso m68 Bob 3 > Cat 1: 8;
            # Dumfries m89 Bob 2 = Cat 2 for second, Cat completed: Bob 5; Inverness m100 alone 8+5 = 13.
            # 4+3+5+5+3+3+8+5+13 = 49
            "areas": 49,
            "incomplete_areas": 0,
            "castles": 10,  # Dunnottar, Glamis
            # Cathedral gift 3 x 2, Clan of the glens 5 (largest food group 5 >= 8 - 3 = 5), Coastline 5 (23
            # tiles by the sea >= 22 - 2*1*0 = 22): 16
            "missions": 16,
        },
        "Cat": {
            "farms": 57,  # 1+1+1+2+3+2+4+5+3+6+4+5+1+2+7+1+1+2+1+2+1+1+1 = 57
            "harbours": 3,  # moves 2, 23, 41
            # Oban m2 size 1: 3; Stranraer m8 first 5; Leith m28 second 3; Ayr m35 (completer, tie) 3; Portree
            # m42 (tie, Ann completed) 5; Fort William m61 first 5; Thurso m68 second 5; Kelso m80 first 8;
            # Dumfries m89 (completer, tie for second) third 0; Aberdeen m92 second 5.
            # 3+5+3+3+5+5+5+8+0+5 = 42
            "areas": 42,
            "incomplete_areas": 0,
            "castles": 25,  # Balmoral, Inveraray, Stirling, Edinburgh, Hermitage
            # Power of the north 5 (largest energy group 7 >= 6), Cathedral gift 3 x 2, Twin fields 4 (food
            # groups 5,2,2,1,1,1: three of 2+ >= 3), Harbour master 0 (3 on harbours < 8 - 3 = 5), Mayor 0 (5
            # areas won < 13 - 6 = 7), Castle lord 5 (5 castles, tied with Ann's 5: a tie fulfils, S-M3):
            # 5+6+4+5 = 20
            "missions": 20,
        },
    },
    # 60+5+43+1+25+13 = 147; 45+2+49+0+10+16 = 122; 57+3+42+0+25+20 = 147: Ann and Cat tie on 147; S-E4:
    # Cat, among the tied, owns Edinburgh (the clover), so Cat wins. (Cat holds Edinburgh since move 23:
    # Bob's m28 ties 1-1 with no farms, S-K5.)
    "scores": {"Ann": 147, "Bob": 122, "Cat": 147},
    "winners": ["Cat"],
    "castles": {"Ardvreck": "Ann", "Eilean Donan": "Ann", "Urquhart": "Ann", "Balmoral": "Cat", "Dunnottar": "Bob",
                "Glamis": "Bob", "Inveraray": "Cat", "Stirling": "Cat", "Edinburgh": "Cat", "Culzean": "Ann",
                "Hermitage": "Cat", "Caerlaverock": "Ann"},
    # Glamis: Ann m12 (S-K2); Bob m16 1-1, no farms (S-K5); Cat m65 1-1, a farm to none (S-K4): Cat; Ann m69
    # 2 to 1 (S-K3): Ann; Bob m88 2-2, a farm to none: Bob.
    # S-M1, deck order: m11 Cat, m12 Ann, m13 Bob, m17 Cat, m26 Cat, m30 Ann, m33 Ann, m36 Ann, m45 Ann, m46
    # Bob, m54 Ann, m58 Bob, m59 Cat, m74 Cat, m91 Bob, m92 Cat, m98 Cat (17 cards; 3 stay in the deck).
    "cards": {"Ann": ["Town builder", "Crown of Scotland", "Borderlands", "Stirling bridge", "Chieftain",
                      "Heartland"],
              "Bob": ["Cathedral gift", "Clan of the glens", "Cathedral gift", "Coastline"],
              "Cat": ["Power of the north", "Cathedral gift", "Cathedral gift", "Twin fields", "Harbour master",
                      "Mayor", "Castle lord"]},
}

# scotland-4p: four players, 27 tiles each less 2 set aside (S-U3, S-U4): 25 moves each.
SCOTLAND_4P: Hand = {
    "finished": True,
    "breakdown": {
        "Ann": {
            "farms": 31,  # 1+1+2+3+4+2+1+1+1+2+2+3+4+1+1+2 = 31
            "harbours": 5,  # moves 0, 28, 32, 40, 44
            # Oban m0 size 1: 4; Stranraer m30 Ann 2 > Cat 1: 5; Portree m33 Bob 3 > Ann 1: 3; Wick m48 alone
            # (Ann 5) 8; Aviemore m62 Ann 2 > Cat 1: 5; Fort William m73 Ann 1 = Bob 1, Bob completed (S-A2):
            # 5; Thurso m99 Dan 4 > Ann 1: 5. 4+5+3+8+5+5+5 = 35
            "areas": 35,
            "incomplete_areas": 3,  # S-E1: Kelso (5,15) settlement:3
            "castles": 5,  # Balmoral
            # 4 players: Clan of the glens 5 (largest food group 4 >= 8 - 4 = 4), Mayor 5 (Oban, Stranraer,
            # Wick, Aviemore, Fort William: 5 won >= 13 - 8 = 5), Cathedral gift 3: 5+5+3 = 13
            "missions": 13,
        },
        "Bob": {
            "farms": 31,  # 1+2+3+1+1+2+3+4+5+2+1+1+1+1+1+2 = 31
            "harbours": 3,  # moves 1, 17, 37
            # Ullapool m1 size 1: 4; Ayr m9 Dan 1 = Bob 1, Bob completed: 3; Leith m25 alone 8; Portree m33
            # first 5; Dundee m39 Dan 4 > Bob 2: 3; Perth m69 Bob 5 > Cat 1: 8; Fort William m73 (completer,
            # tie): 3. 4+3+8+5+3+8+3 = 34
            "areas": 34,
            "incomplete_areas": 0,
            "castles": 10,  # Edinburgh, Hermitage
            # Stirling bridge 0 (Cat's), Crown of Scotland 6 (Edinburgh is his), Power of the north 0 (largest
            # energy group 5 < 6), Bread basket 0 (largest food group 3 < Dan's 8): 6
            "missions": 6,
        },
        "Cat": {
            "farms": 61,  # 1+1+2+2+3+4+5+3+1+2+6+1+1+7+8+2+3+9 = 61
            "harbours": 0,
            # Tobermory m10 size 1: 4; Stranraer m30 (completer) second 3; Aberdeen m54 Dan 5 > Cat 3: 5;
            # Aviemore m62 second 3; Perth m69 second 5; Dumfries m83 Dan 3 > Cat 2: 5. 4+3+5+3+5+5 = 25
            "areas": 25,
            "incomplete_areas": 3,  # Kelso (5,16) settlement:3
            "castles": 30,  # Ardvreck, Eilean Donan, Urquhart, Stirling, Culzean, Caerlaverock
            # Pilgrim 0 (10 tiles next to a cathedral < 15 - 2*1 = 13), Chieftain 0 (1 area won, Tobermory,
            # < Dan's 6), Heartland 5 (energy group of 9 >= 6), Coastline 0 (11 by the sea < 22 - 2*2*1 = 18),
            # Borderlands 0 (9 castles touched < 14 - 4 = 10), Cathedral gift 3: 5+3 = 8
            "missions": 8,
        },
        "Dan": {
            "farms": 65,  # 1+2+3+1+2+3+4+4+5+6+5+6+7+7+8+1 = 65
            "harbours": 2,  # moves 7, 31
            # Kirkcudbright m3 size 1: 2; Ayr m9 (tie, Bob completed) 5; Dundee m39 first 5; Aberdeen m54 first
            # 8; Dumfries m83 first 8; Thurso m99 first 8. 2+5+5+8+8+8 = 36
            "areas": 36,
            "incomplete_areas": 0,
            "castles": 15,  # Dunnottar, Glamis, Inveraray
            # Cathedral gift 3, Town builder 0 (6 areas < 10 - 2*1 = 8), Twin fields 0 (food groups 8, 1: one
            # of 2+ < 3), Harbour master 0 (2 < 8 - 4 = 4), Castle guard 0 (12 tiles by castles < 21 - 2*2*1 =
            # 17): 3
            "missions": 3,
        },
    },
    # 31+5+35+3+5+13 = 92; 31+3+34+0+10+6 = 84; 61+0+25+3+30+8 = 127; 65+2+36+0+15+3 = 121
    "scores": {"Ann": 92, "Bob": 84, "Cat": 127, "Dan": 121},
    "winners": ["Cat"],
    "castles": {"Ardvreck": "Cat", "Eilean Donan": "Cat", "Urquhart": "Cat", "Balmoral": "Ann", "Dunnottar": "Dan",
                "Glamis": "Dan", "Inveraray": "Dan", "Stirling": "Cat", "Edinburgh": "Bob", "Culzean": "Cat",
                "Hermitage": "Bob", "Caerlaverock": "Cat"},
    # Balmoral: Ann m60 (S-K2); Cat m62 1-1, no farms (S-K5); Dan m75 1-1, a farm to none (S-K4): Dan; Bob m85
    # 1-1, a farm each: Dan keeps; Ann m88 2 to 1 (S-K3): Ann.
    "cards": {"Ann": ["Clan of the glens", "Mayor", "Cathedral gift"],
              "Bob": ["Stirling bridge", "Crown of Scotland", "Power of the north", "Bread basket"],
              "Cat": ["Pilgrim", "Chieftain", "Heartland", "Coastline", "Borderlands", "Cathedral gift"],
              "Dan": ["Cathedral gift", "Town builder", "Twin fields", "Harbour master", "Castle guard"]},
}

# unfinished: the first 40 moves of the scotland-3p game (Ann 14, Bob 13, Cat 13): not over (S-T2), so no
# end-of-game scoring in the breakdown; `end_now` is what it would add now.
UNFINISHED: Hand = {
    "finished": False,
    "breakdown": {
        # farms 1+1+1+2+3+2+3+1+2 = 16; harbours m0, m12, m30, m36; areas Ullapool m0 2 + Dundee m16 (Bob 3 >
        # Ann 1) 3 + Kirkcudbright m21 4 + Ayr m35 (Cat completed the 2-2 tie) 5 = 14
        "Ann": {"farms": 16, "harbours": 4, "areas": 14, "incomplete_areas": 0, "castles": 0, "missions": 0},
        # farms 1+2+3+1+4+2+3+1 = 17; harbours m7, m19; Tobermory m4 4 + Stranraer m8 3 + Dundee m16 5 +
        # Leith m28 5 = 17
        "Bob": {"farms": 17, "harbours": 2, "areas": 17, "incomplete_areas": 0, "castles": 0, "missions": 0},
        # farms 1+1+1+2+3+2+4+5+3 = 22; harbours m2, m23; Oban m2 3 + Stranraer m8 5 + Leith m28 3 + Ayr m35 3
        # = 14
        "Cat": {"farms": 22, "harbours": 2, "areas": 14, "incomplete_areas": 0, "castles": 0, "missions": 0},
    },
    "scores": {"Ann": 34, "Bob": 36, "Cat": 38},  # 16+4+14, 17+2+17, 22+2+14: the track only
    "end_now": {
        # Aberdeen (9,8) settlement:2 = 2; Ardvreck, Eilean Donan, Urquhart, Glamis, Culzean, Caerlaverock =
        # 30; cards: Town builder 0 (5 areas < 11), Crown of Scotland 0 (Edinburgh: Cat), Borderlands 0 (6 castles
        # touched < 11), Stirling bridge 0 (Cat's) = 0
        "Ann": {"incomplete_areas": 2, "castles": 30, "missions": 0},
        # Thurso (8,1) settlement:1 = 1; Dunnottar, Hermitage = 10; Cathedral gift 3
        "Bob": {"incomplete_areas": 1, "castles": 10, "missions": 3},
        # Inveraray, Stirling, Edinburgh = 15; Power of the north 0 (largest energy group 5) + Cathedral gift
        # 3 x 2 = 6
        "Cat": {"incomplete_areas": 0, "castles": 15, "missions": 6},
    },
    "winners": [],
    "castles": {"Ardvreck": "Ann", "Eilean Donan": "Ann", "Urquhart": "Ann", "Balmoral": None, "Dunnottar": "Bob",
                "Glamis": "Ann", "Inveraray": "Cat", "Stirling": "Cat", "Edinburgh": "Cat", "Culzean": "Ann",
                "Hermitage": "Bob", "Caerlaverock": "Ann"},
    "cards": {"Ann": ["Town builder", "Crown of Scotland", "Borderlands", "Stirling bridge"],
              "Bob": ["Cathedral gift"],
              "Cat": ["Power of the north", "Cathedral gift", "Cathedral gift"]},
}

# scenario-120: RULES.md S-E5 itself: 87 on the track, 5 icons in incomplete areas, 3 castles, two missions
# of 5 plus a Cathedral gift: 87 + 5 + 15 + 13 = 120. Ann's settlement:3 (0,1) and settlement:2 (2,1) in
# Perth (size 3, (1,1) empty: incomplete, S-E1 3+2 = 5); (0,1) touches Edinburgh and Stirling, (2,1)
# Dunnottar: unowned, taken (S-K2), 3 x 5 = 15 (S-E2); Castle lord 5 x 2 (most castles: 3 to 0) + gift 3.
SCENARIO_120: Hand = {
    "finished": True,
    "breakdown": {"Ann": {"farms": 0, "harbours": 0, "areas": 0, "incomplete_areas": 5, "castles": 15, "missions": 13},
                  "Bob": {"farms": 0, "harbours": 0, "areas": 0, "incomplete_areas": 0, "castles": 0, "missions": 0}},
    "scores": {"Ann": 120, "Bob": 0},
    "winners": ["Ann"],
    "castles": {"Edinburgh": "Ann", "Stirling": "Ann", "Dunnottar": "Ann"},
    "cards": {"Ann": ["Castle lord", "Castle lord", "Cathedral gift"], "Bob": []},
}

# ireland-2p: Ann and Bob, 32 neutral tiles (S-U2); 4 set aside (I-U1): 32 moves each, plus the set-aside
# tiles taken at Turlough (Ann m6, Bob m19, I-R1): 66 moves. Public missions (I-M1): the first 8 cards of the
# deck; Blarney stone, Kingdom of Tara, Coastal clans and Harvest stay in the deck. The cards' numbers with 2
# players (rules/ireland.rules, `players` = 2, (players - 2) * (players - 3) = 0): Wind farmer 7 - 2 = 5 wind
# collectors, Castle keeper 2 * castles >= 21 - 6 = 15 (8 castles), Lord of the province 2 * won >= 19 - 6
# = 13 (7 areas), Town council 2 * areas >= 20 (10), Green fields 2 * (food groups of 2+) >= 6 (3), Peat
# power energy group >= 2 * 2 = 4, Chieftain of Ireland influence >= 27, Round tower pilgrim 8 towers;
# held: Blarney stone (the clover castle and 10 - 4 = 6 castles), Kingdom of Tara (2 * tiles by it >= 6: 3).
IRELAND_2P: Hand = {
    "finished": True,
    "breakdown": {
        "Ann": {
            "farms": 35,  # 1+1+1+1+1+1+2+3+1+2+1+1+2+1+1+2+1+3+2+3+4 = 35
            "wind": 5,  # I-H1: moves 10, 12, 14, 22, 28
            # Drogheda m2 alone (other hex neutral) 8; Sligo m8 alone 8; Waterford m21 Bob 3 > Ann 1: 5; Ennis
            # m26 size 1: 4; Armagh m30: 2; Dingle m34: 4; Athlone m42 Ann 3 > Bob 2: 5; Dublin m51 (size 4,
            # 2 players: 17 / 8, I-A1) Ann 2 = Bob 2, Bob completed: 17; Derry m53 Ann 3 > Bob 2: 8; Cork m60
            # (size 4) Bob 4 > Ann 1: 8. 8+8+5+4+2+4+5+17+8+8 = 69
            "areas": 69,
            "incomplete_areas": 3,  # Belfast (10,4) 1 + (9,6) 2
            "castles": 30,  # Dunluce, Roscommon, Dunguaire, Bunratty, Ross, Blarney = 6 x 5
            # I-E1: privatised Blarney stone (Glendalough m50): Blarney (clover) is hers and she holds 6
            # castles >= 6: 7
            "missions": 7,
            "towers": 19,  # I-R1: Hill of Tara m0 13 + Devenish m4 3 + Ardmore m20 3
            # I-M1, big to the first, small to later: Wind farmer m28 first 5 (fifth wind collector: m10,
            # m12, m14, m22, m28), Round tower pilgrim m50 first 7 (8 towers), Lord of the province m51 first
            # 8 doubled (her marker, put on it at Clonmacnoise m42, before she had fulfilled it) 16 (won:
            # Drogheda, Sligo, Ennis, Armagh, Dingle, Athlone m42, Dublin m51 = 7, 2 * 7 = 14 >= 13), Town
            # council m52 first 6 (10 areas), Green fields m56 first 6 (food groups 3, 2, 2: three of 2+),
            # Peat power m62 later 3 (energy group of 4; Bob m29 first), Chieftain of Ireland m64 later 3
            # (influence 28). Castle keeper never: at most 6 castles (7 < 8 for Bob too, after m49).
            # 5+7+16+6+6+3+3 = 46
            "public_missions": 46,
        },
        "Bob": {
            "farms": 75,  # 1+1+1+2+1+1+1+2+3+3+4+1+2+4+1+5+6+7+8+9+10+2 = 75
            "wind": 3,  # moves 11, 13, 15
            # Wexford m3 alone (other hex neutral) 8; Westport m19 size 1: 3; Waterford m21 first 8;
            # Letterkenny m27: 2; Bantry m33: 4; Athlone m42 second 3; Dublin m51 (completer, tie) 8; Derry m53
            # second 5; Cork m60 first 17. 8+3+8+2+4+3+8+5+17 = 58
            "areas": 58,
            "incomplete_areas": 4,  # Galway (-1,11) 4
            "castles": 30,  # Donegal, Ashford, Malahide, Cahir, Kilkenny, Enniscorthy
            # privatised Kingdom of Tara (Glendalough m51): 3 tiles next to the Hill of Tara, 2 * 3 >= 6: 8
            "missions": 8,
            "towers": 19,  # Hill of Tara m1 13 + Ardmore m5 3 + Devenish m7 3
            # Peat power m29 first 6 ((-5,18) joins his energy group of 3: 4), Town council m55 later 3,
            # Chieftain of Ireland m59 first 6 (influence 27). Never: Wind farmer (3 wind collectors < 5),
            # Castle keeper (at most 7 castles, m49-m61: 14 < 15), Lord of the province (6 areas won, Cork m60
            # the 6th: 12 < 13; his marker of m41 pays nothing). 6+3+6 = 15
            "public_missions": 15,
        },
    },
    # 35+5+69+3+30+7+19+46 = 214; 75+3+58+4+30+8+19+15 = 212
    "scores": {"Ann": 214, "Bob": 212},
    "winners": ["Ann"],
    "castles": {"Dunluce": "Ann", "Donegal": "Bob", "Roscommon": "Ann", "Ashford": "Bob", "Malahide": "Bob",
                "Dunguaire": "Ann", "Bunratty": "Ann", "Cahir": "Bob", "Kilkenny": "Bob", "Enniscorthy": "Bob",
                "Ross": "Ann", "Blarney": "Ann"},
    # Ross: Bob m29 (S-K2); Ann m32 ties 1-1 with a farm each (S-K5: Bob keeps); Ann m34 2 to 1 (S-K3): Ann.
    "cards": {"Ann": ["Blarney stone"], "Bob": ["Kingdom of Tara"]},
    "public_missions": {"Town council": ["Ann", "Bob"], "Wind farmer": ["Ann"],
                        "Lord of the province": ["Ann"], "Round tower pilgrim": ["Ann"],
                        "Castle keeper": [], "Peat power": ["Bob", "Ann"], "Green fields": ["Ann"],
                        "Chieftain of Ireland": ["Bob", "Ann"]},
}

# ireland-4p: four players, 27 tiles less 4 set aside: 23 moves each, plus tiles taken at Turlough (m8 Ann,
# m21 Bob): 94 moves. No neutral tiles. The cards' numbers with 4 players (`players` = 4, (players - 2) *
# (players - 3) = 2): Castle keeper 2 * castles >= 21 - 12 = 9 (5 castles), Coastal clans 16 - 4 = 12 tiles
# by the sea, Chieftain of Ireland influence >= 27 - 10 = 17, Green fields 2 * (food groups of 2+) >= 6 - 2
# = 4 (2), Wind farmer 7 - 4 = 3, Kingdom of Tara 2 * tiles by it >= 4 (2), Round tower pilgrim 8 towers, Peat
# power energy group >= 8 - 4 = 4; held: Lord of the province 2 * won >= 19 - 12 = 7 (4 areas), Harvest food
# group >= 8 - 2 = 6, Town council 2 * areas >= 20 - 6 = 14 (7 areas).
IRELAND_4P: Hand = {
    "finished": True,
    "breakdown": {
        "Ann": {
            "farms": 37,  # 1+1+1+2+3+1+4+5+1+1+1+6+7+2+1 = 37
            "wind": 4,  # moves 40, 60, 64, 68
            # Westport m8 size 1: 1; Letterkenny m12: 3; Waterford m14 (size 3) Bob 3 = Cat 3, Cat completed:
            # Bob 8, Cat 5, Ann 1 third 0; Armagh m16: 2; Bantry m24: 1; Dublin m52 (size 4, 12 / 8 / 5) Dan 6,
            # Ann 3, Cat 1: 8; Galway m84 Dan 4 = Ann 4, Ann completed: 5; Sligo m88 Dan 2 = Ann 2, Ann
            # completed: 3. 1+3+0+2+1+8+5+3 = 23
            "areas": 23,
            "incomplete_areas": 2,  # Derry (7,3) 2
            "castles": 10,  # Donegal, Ashford
            # I-E1: privatised Lord of the province (Glendalough m52): won Westport, Letterkenny, Armagh,
            # Bantry = 4 areas, 2 * 4 = 8 >= 7: 8
            "missions": 8,
            "towers": 19,  # Ardmore m0 3 + Hill of Tara m4 13 + Devenish m20 3
            # Wind farmer m64 later 2 (her third wind collector: m40, m60, m64), Chieftain of Ireland m84
            # later 3 (settlement:4 at (-1,11): influence 13 + 4 = 17): 2+3 = 5
            "public_missions": 5,
        },
        "Bob": {
            "farms": 19,  # 1+1+1+1+1+1+1+1+1+2+1+3+1+1+2 = 19
            "wind": 0,
            # Waterford m14 first 8; Athlone m46 Bob 2 > Cat 1: 5; Limerick m62 (size 4) Bob 5, Cat 3, Dan 1:
            # 12; Cork m66 (size 4) Bob 3 = Cat 3, Cat completed: 12; Wexford m69 Bob 3 > Dan 2: 5; Galway m84
            # third 0. 8+5+12+12+5+0 = 42
            "areas": 42,
            "incomplete_areas": 2,  # Derry (8,3) 2
            "castles": 15,  # Bunratty, Kilkenny, Enniscorthy
            "missions": 0,  # no privatised card
            "towers": 3,  # Ardmore m13
            # Castle keeper m65 later 3 (Blarney taken back from Dan: Enniscorthy, Kilkenny, Dunguaire m41,
            # Bunratty m53, Blarney = 5), Chieftain of Ireland m69 first 6 (settlement:3: 14 + 3 = 17),
            # Coastal clans m89 later 3 (12 tiles by the sea): 3+6+3 = 12 (his Kingdom of Tara marker, m29,
            # pays nothing: no tile of his touches the Hill of Tara)
            "public_missions": 12,
        },
        "Cat": {
            "farms": 22,  # 1+1+1+1+1+2+1+3+1+2+1+2+2+3 = 22
            "wind": 4,  # moves 10, 26, 38, 58
            # Waterford m14 (completer, tie) 5; Dingle m22: 2; Ennis m30: 2; Athlone m46 second 3; Dublin m52
            # third 5; Limerick m62 second 8; Cork m66 (completer, tie) 8; Drogheda m70 Cat 4 > Dan 1: 5.
            # 5+2+2+3+5+8+8+5 = 38
            "areas": 38,
            "incomplete_areas": 0,
            "castles": 15,  # Cahir, Ross, Blarney
            "missions": 0,  # privatised Harvest (Glendalough m50): largest food group 3 < 6
            "towers": 19,  # Hill of Tara m2 13 + Devenish m6 3 + Ardmore m18 3
            # Wind farmer m38 first 5 (third wind collector: m10, m26, m38), Chieftain of Ireland m70 later 3
            # (settlement:4: 15 + 4 = 19), Green fields m82 first 6 (food groups 3 and 2), Coastal clans m86
            # first 6 (12 tiles by the sea): 5+3+6+6 = 20 (her Kingdom of Tara marker, m46, pays nothing:
            # one tile by the Hill of Tara < 2)
            "public_missions": 20,
        },
        "Dan": {
            "farms": 16,  # 1+1+1+1+1+1+1+2+1+1+1+1+1+2 = 16
            "wind": 0,
            # Dublin m52 first 12; Limerick m62 third 5; Wexford m69 second 3; Drogheda m70 second 3; Galway
            # m84 (tie, Ann completed) 8; Sligo m88 (tie, Ann completed) 5. 12+5+3+3+8+5 = 36
            "areas": 36,
            "incomplete_areas": 3,  # Belfast (11,3) 2 + (9,6) 1
            "castles": 20,  # Dunluce, Roscommon, Malahide, Dunguaire
            # privatised Town council (Glendalough m43): settlements in 7 areas, 2 * 7 = 14 >= 14: 6
            "missions": 6,
            "towers": 13,  # Hill of Tara m35
            # Castle keeper m23 first 7 (Roscommon, Malahide, Dunguaire, Bunratty, Blarney: 5), Chieftain of
            # Ireland m75 later 3 (settlement:4: 14 + 4 = 18): 7+3 = 10 (his Peat power marker, m79, pays
            # nothing: energy groups of 2 at most, for every player)
            "public_missions": 10,
        },
    },
    # 37+4+23+2+10+8+19+5 = 108; 19+0+42+2+15+0+3+12 = 93; 22+4+38+0+15+0+19+20 = 118;
    # 16+0+36+3+20+6+13+10 = 104
    "scores": {"Ann": 108, "Bob": 93, "Cat": 118, "Dan": 104},
    "winners": ["Cat"],
    "castles": {"Dunluce": "Dan", "Donegal": "Ann", "Roscommon": "Dan", "Ashford": "Ann", "Malahide": "Dan",
                "Dunguaire": "Dan", "Bunratty": "Bob", "Cahir": "Cat", "Kilkenny": "Bob", "Enniscorthy": "Bob",
                "Ross": "Cat", "Blarney": "Cat"},
    # Blarney: Bob m9 (S-K2); Dan m23 1-1, a farm to none (S-K4): Dan; Bob m65 2 to 1 (S-K3): Bob; Cat m82
    # 2-2, a farm to none: Cat.
    # Glendalough (private mission): m43 Dan, m50 Cat, m52 Ann draw the 9th, 10th, 11th cards.
    "cards": {"Ann": ["Lord of the province"], "Bob": [], "Cat": ["Harvest"], "Dan": ["Town council"]},
    "public_missions": {"Castle keeper": ["Dan", "Bob"], "Coastal clans": ["Cat", "Bob"],
                        "Chieftain of Ireland": ["Bob", "Cat", "Dan", "Ann"], "Green fields": ["Cat"],
                        "Wind farmer": ["Cat", "Ann"], "Kingdom of Tara": [], "Round tower pilgrim": [],
                        "Peat power": []},
}

HAND: dict[str, Hand] = {
    "scotland-2p": SCOTLAND_2P, "scotland-3p": SCOTLAND_3P, "scotland-4p": SCOTLAND_4P, "unfinished": UNFINISHED,
    "scenario-120": SCENARIO_120, "ireland-2p": IRELAND_2P, "ireland-4p": IRELAND_4P,
}


def _assert_matches(report: dict[str, Any], hand: Hand, what: str) -> None:
    """Every hand-computed number equals the report's."""
    players = {p["name"]: p for p in report["players"]}
    assert report["finished"] is hand["finished"], what
    for name, breakdown in hand["breakdown"].items():
        assert players[name]["breakdown"] == breakdown, (what, name)
        assert sum(breakdown.values()) + players[name].get("start", 0) == hand["scores"][name], (what, name)
    assert {n: p["score"] for n, p in players.items()} == hand["scores"], what
    assert {n: p["cards"] for n, p in players.items()} == hand["cards"], what
    assert report["castles"] == hand["castles"], what
    assert report["winners"] == hand["winners"], what
    for name, end_now in hand.get("end_now", {}).items():
        assert players[name]["end_now"] == end_now, (what, name)
        assert players[name]["if_ended_now"] == hand["scores"][name] + sum(end_now.values()), (what, name)
    if "public_missions" in hand:
        assert report["public_missions"] == hand["public_missions"], what


def test_every_golden_file_is_paired() -> None:
    """Each golden file has a hand computation here, and each bundled example a golden file."""
    goldens = {p.name.removesuffix(".eval.json") for p in GOLDEN.glob("*.eval.json")}
    examples = {p.stem for p in (ROOT / "examples").glob("*.json")}
    assert goldens == examples == set(HAND)


@pytest.mark.parametrize("example", sorted(HAND))
def test_engine_equals_the_hand_computation(run_cli, example: str) -> None:
    """`rebirth eval EXAMPLE --json` gives the numbers worked out by hand above."""
    code, out, err = run_cli("eval", ROOT / "examples" / f"{example}.json", "--json")
    assert code == 0, err
    _assert_matches(json.loads(out), HAND[example], "engine")


@pytest.mark.parametrize("example", sorted(HAND))
def test_golden_file_equals_the_hand_computation(example: str) -> None:
    """The golden file holds the same numbers: a golden file regenerated with a bug in it fails here."""
    _assert_matches(json.loads((GOLDEN / f"{example}.eval.json").read_text()), HAND[example], "golden")
