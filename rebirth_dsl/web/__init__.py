"""The web app (`rebirth serve`): the optional extra [web]."""
