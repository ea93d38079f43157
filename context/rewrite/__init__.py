"""Bytecode rewriting: the call pass, the optional operator passes, user passes."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from .code import cache_size, is_rewritten, rewrite_code
from .config import RewriteConfig, config_for

__all__ = ["RewriteConfig", "cache_size", "config_for", "is_rewritten", "rewrite_code"]
