"""Stand-ins for the slots of :mod:`core.bundle.templates` so that the templates are Python that
linters and ``compile`` read (DP Wizard's approach). :class:`core.bundle.template.Template`
removes the line that imports them and puts the bundle's values in their place; it refuses a
template left with a slot unfilled."""
BUNDLE_TITLE = "the bundle's title"
PAGE_NAME = "compare"
RERUN_COMMAND = "python rerun.py"
DATA_SENTENCE = "what data the rerun needs, in one sentence"
