"""Reverse-mode rules for this family are being written; nothing is registered yet."""
