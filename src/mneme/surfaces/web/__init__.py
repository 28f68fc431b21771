"""The review page: static HTML, CSS and ES modules, served as they are (no build step)."""

from __future__ import annotations

from pathlib import Path


def static_dir() -> Path:
    """The directory of the page's files (package data)."""
    return Path(__file__).resolve().parent / "static"
