"""Bundles: a result handed over as one zip that a colleague can rerun (docs/design.md section 2.9).

:mod:`core.bundle.page_config` (``pux-page/1``, a method page's settings), :mod:`core.bundle.pages`
(what each page computes, with this project's core only), :mod:`core.bundle.template` and
:mod:`core.bundle.notebook` (the rerun script from a lintable template, and its notebook),
:mod:`core.bundle.build` (the zip, in its two kinds), :mod:`core.bundle.check` (number by number)
and :mod:`core.bundle.rerun` (``pux rerun``). Nothing is imported here, so that a config reader
can use :mod:`core.data.formats` without loading the bundle machinery.
"""
