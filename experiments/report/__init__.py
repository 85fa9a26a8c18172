"""Reporting: one model of each paper's verdicts (model.py), rendered as REPORT.md and SENSITIVITY.md
(markdown.py, sensitivity_markdown.py) and as HTML pages (html.py, templates/), and the browser check of those
pages.
"""
