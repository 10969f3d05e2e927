"""An independent, naive scoring oracle for Rebirth game records, written from shared/RULES.md only."""

from .naive import OracleError, OracleRefusal, OracleResult, score_record

__all__ = ["OracleError", "OracleRefusal", "OracleResult", "score_record"]
