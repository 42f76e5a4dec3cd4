"""One module per view of the app, each read top-down the same way: its widgets, the settings'
specs, the pipeline's results from the caches (``kernelviz.ui.caches``), the figure
(``kernelviz.figures``), and the component that draws it (``kernelviz.ui.takeaway.chart``).

Each module's ``show(prep, values, partition)`` draws its view: ``prep`` is the prepared data,
``values`` the settings, ``partition`` the fitted partition (None where the view needs none) —
except ``theory.show()``, which needs no data. ``app.py`` picks the view, prepares what it
needs and catches what it raises (the error boundary); ``shared`` holds what several views use.

pandas (0.7 s to import) is imported inside the views that make tables, not at the start: the
first page, the Data view, has none.
"""
