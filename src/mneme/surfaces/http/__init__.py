"""The HTTP surface: a FastAPI app over ``Memory`` with bearer tokens (see ``create_app``)."""

# First: registers the ``mneme_id`` path convertor every router's paths use.
from mneme.surfaces.http import paths  # noqa: F401  # isort: skip
from mneme.surfaces.http.app import create_app
from mneme.surfaces.http.tokens import Principal, TokenStore

__all__ = ["Principal", "TokenStore", "create_app"]
