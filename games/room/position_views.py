"""A position by its ID: the page (with its description for screen readers) and its SVG and
PNG images, cached by renderer version."""

import hashlib
from importlib import metadata
from pathlib import Path

import ttf_opensans
from django.core.cache import cache
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import app_settings, ratelimits
from games.engine import PositionError
from games.engine.position_id import decode as decode_position
from games.room import board_svg
from games.room.board_svg import VIEW_H, VIEW_W, render_board
from games.room.replay_views import share_urls


def _position_or_404(position_id):
    try:
        return decode_position(position_id)
    except PositionError:
        raise Http404(_("This is not a position ID.")) from None


def describe_position(position):
    """A one-line description of a position in the active language (whose turn, pip counts,
    checkers off)."""
    params = {
        "white_pips": position.pip("white"),
        "black_pips": position.pip("black"),
        "white_off": position.off("white"),
        "black_off": position.off("black"),
    }
    if position.turn == "white":
        text = _(
            "White to move. Pip count: white %(white_pips)s, black %(black_pips)s. "
            "Borne off: white %(white_off)s, black %(black_off)s."
        )
    else:
        text = _(
            "Black to move. Pip count: white %(white_pips)s, black %(black_pips)s. "
            "Borne off: white %(white_off)s, black %(black_off)s."
        )
    return text % params


def _board_svg(position, size=None):
    return render_board(
        position,
        title=_("Long nardy position"),
        desc=describe_position(position),
        size=size,
        id_prefix="position",
    )


@require_GET
def position_page(request, position_id):
    """GET: the share page of one position (``/<lang>/position/<id>/``): the board, its
    description, the image links and Open Graph tags with the PNG for link previews."""
    position = _position_or_404(position_id)
    origin = request.build_absolute_uri("/").rstrip("/")
    urls = share_urls(position_id)
    return render(
        request,
        "positions/share.html",
        {
            "position_id": position_id,
            "position": position.to_json(),
            "description": describe_position(position),
            "board_svg": _board_svg(position),
            "share_urls": urls,
            "page_url": origin + urls["page"],
            "image_url": origin + urls["png"],
        },
    )


#: the size of the PNG preview (Open Graph's recommended 1.91:1)
PNG_WIDTH, PNG_HEIGHT = 1200, 630

#: how long a drawn position image stays in the server cache and in browsers (seconds)
IMAGE_CACHE_SECONDS = 86400


#: a fingerprint of what draws the images (the board code, the PNG size, resvg's version), so a
#: changed renderer never serves an image cached by the one before
RENDERER_VERSION = hashlib.sha256(
    Path(board_svg.__file__).read_bytes()
    + f"{PNG_WIDTH}x{PNG_HEIGHT}:{metadata.version('resvg_py')}".encode()
).hexdigest()[:16]


def _image_cache_key(kind, position_id, *extra):
    return ":".join(("position-image", kind, RENDERER_VERSION, position_id, *map(str, extra)))


def position_svg(request, position_id):
    """GET ``/position/<id>.svg``: the position drawn by ``games.room.board_svg``; 404 for a bad ID.
    Cached by browsers for a day (an ID always shows the same position), and on the server
    (Django's cache, Redis) per ID, language (the title and description) and renderer."""
    position = _position_or_404(position_id)
    return _cached_image(
        request,
        _image_cache_key("svg", position_id, get_language()),
        lambda: _board_svg(position),
        "image/svg+xml; charset=utf-8",
    )


_PNG_FONTS = Path(ttf_opensans.__file__).with_name("ttf")


def position_png(request, position_id):
    """GET ``/position/<id>.png``: the same board as a 1200×630 PNG for link previews (the SVG
    centred on the site's background, rasterized with resvg); 404 for a bad ID. Drawing one
    takes about 0.1 s, so the bytes are kept in Django's cache (Redis) per ID and renderer: a
    repeated request costs a cache read."""
    position = _position_or_404(position_id)
    return _cached_image(
        request,
        _image_cache_key("png", position_id, _PNG_FONTS),
        lambda: _render_png(position),
        "image/png",
    )


def _cached_image(request, key, render, content_type):
    """The image under ``key`` in Django's cache, drawn by ``render()`` on a miss, as a response
    that browsers may also keep for IMAGE_CACHE_SECONDS; a miss beyond the address's
    ``IMAGE_RENDER_IP_LIMITS`` gets 429 with Retry-After instead."""
    body = cache.get(key)
    if body is None:
        wait = ratelimits.hit(
            app_settings.IMAGE_RENDER_IP_LIMITS,
            "image",
            "ip",
            request.META.get("REMOTE_ADDR") or "unknown",
        )
        if wait is not None:
            seconds = ratelimits.seconds_text(wait)
            refused = HttpResponse(
                _("Too many new images in a short time: try again later."),
                status=429,
                content_type="text/plain; charset=utf-8",
            )
            refused["Retry-After"] = str(seconds)
            return refused
        body = render()
        cache.set(key, body, IMAGE_CACHE_SECONDS)
    response = HttpResponse(body, content_type=content_type)
    response["Cache-Control"] = f"public, max-age={IMAGE_CACHE_SECONDS}"
    return response


def _render_png(position):
    """The PNG bytes of ``position`` (1200×630)."""
    import resvg_py  # a compiled wheel: loaded only when a PNG is drawn

    board = render_board(position, title="", desc="", id_prefix="png")
    board_h = PNG_HEIGHT - 40
    board_w = round(board_h * VIEW_W / VIEW_H)
    inner = board.replace(
        "<svg ",
        f'<svg x="{(PNG_WIDTH - board_w) // 2}" y="20" width="{board_w}" height="{board_h}" ',
        1,
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PNG_WIDTH}" height="{PNG_HEIGHT}" '
        f'viewBox="0 0 {PNG_WIDTH} {PNG_HEIGHT}"><rect width="100%" height="100%" '
        f'fill="#f4ecdc"/>{inner}</svg>'
    )
    # The font comes with the project (ttf-opensans), so point numbers and counts are drawn
    # the same on every machine, with or without system fonts.
    png = resvg_py.svg_to_bytes(
        svg_string=svg,
        width=PNG_WIDTH,
        height=PNG_HEIGHT,
        skip_system_fonts=True,
        font_dirs=[str(_PNG_FONTS)],
        font_family="Open Sans",
        sans_serif_family="Open Sans",
    )
    return bytes(png)
