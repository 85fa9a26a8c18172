"""The papers' own mathematics, from their formulas, with no run behind them: Alemu's drop functions
(Ch. 1), the stability design rules of PI, LRED and AVQ (Ch. 4) and the FEC loss model (§5.5). The figures draw
them beside the runs, and configs/psand.yaml holds the values the design rules give.
"""
