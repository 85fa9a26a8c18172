"""Judging claims: the statistics, each claim kind's verdict, how a claim's cells combine, notes filled from
the runs, and the sensitivity table (every claim under every reading).
"""
