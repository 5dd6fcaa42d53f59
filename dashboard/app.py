"""Entry point: ``streamlit run dashboard/app.py`` (or ``make run``)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # so that `core` and `dashboard` import from any working dir
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from dashboard.navigation import DEFAULT_PAGE, SECTIONS  # noqa: E402
from dashboard.shared.serving.jobs import prime_spare  # noqa: E402
from dashboard.shared.serving.reattach import remember_browser  # noqa: E402
from dashboard.shared.widgets import settings  # noqa: E402
from dashboard.shared.widgets.present import apply_style, exit_button  # noqa: E402
from dashboard.shared.widgets.sidebar import render_sidebar  # noqa: E402

def _page_icon():
    """A shield drawn here, so the browser fetches no icon from a font server."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(img).polygon([(32, 4), (58, 14), (54, 40), (32, 60), (10, 40), (6, 14)],
                                fill=(31, 119, 180, 255))
    ImageDraw.Draw(img).rectangle([24, 28, 40, 44], fill=(255, 255, 255, 255))
    return img


st.set_page_config(page_title="Privacy-utility explorer", page_icon=_page_icon(), layout="wide",
                   initial_sidebar_state="auto")
from dashboard.shared.serving.warmup import start_warmup  # noqa: E402
start_warmup()  # once per server: the built-in samples' default results, in the background (issue 41)

PAGES = {
    section: [st.Page(spec.file, title=spec.title, icon=spec.icon, default=spec.name == DEFAULT_PAGE)
              for spec in specs]
    for section, specs in SECTIONS.items()
}

page = st.navigation(PAGES)
settings.restore(page.url_path)  # kept settings, or on a first visit the link's
show_dataset_in_sidebar = render_sidebar()
remember_browser()  # this browser's token, for a reload to come back to its running jobs
prime_spare()  # a job child started ahead: the first job of the server starts at once too
show_dataset_in_sidebar()  # before the page: survives a page that ends with st.stop()
apply_style()  # before anything it hides is drawn
exit_button()  # presenting: the way back, above the page
try:
    page.run()
finally:  # also after a page's st.stop(), where any further element would stop too:
    try:  # first keep the page's settings (session state and URL only)
        settings.remember(page.url_path)
    finally:  # then the dataset again, for the Data page, which changes it
        show_dataset_in_sidebar()
