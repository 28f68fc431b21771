"""``/docs`` and ``/redoc`` that work offline (ADR 0048).

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so on a machine without internet
``/docs`` was a blank page. The assets come from the PyPI package ``fastapi-offline`` (in the
``server`` extra) and are served by this app under ``/docs-assets``; the pages name no other
host.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"


def assets_dir() -> Path:
    """Where the packaged Swagger UI and ReDoc files are.

    Raises:
        ImportError: the ``server`` extra is not installed (it names the extra).
    """
    try:
        import fastapi_offline
    except ImportError as exc:  # pragma: no cover - the server extra brings it
        raise ImportError(
            "the API docs need the server extra: pip install 'mneme[server]' (fastapi-offline)"
        ) from exc
    return Path(fastapi_offline.__file__).parent / "static"


def install(app: FastAPI, title: str) -> None:
    """Serve ``/docs`` (Swagger UI), ``/redoc`` and their assets from this app alone."""
    app.mount(ASSETS, StaticFiles(directory=assets_dir()), name="docs-assets")
    redirect = "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title=f"{title} · API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            oauth2_redirect_url=redirect,
        )

    @app.get(redirect, include_in_schema=False)
    def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title=f"{title} · API",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
