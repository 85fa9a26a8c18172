# Stage: the figures and tables each experiment file names, drawn by figures/<paper>.py
# (or the module an entry names, e.g. figures.generic for any sweep). A drawing reads its
# experiment's tables, its own entry of the file (`entry`, a digest: editing one figure
# entry redraws that figure only) and the code it runs (`code`: its figure module and what
# that imports, experiments.workflow.digests).


rule draw_figure:
    input:
        lambda w: PLAN.artifact_inputs(RESULTS, w.paper, "figures", w.artifact),
    output:
        layout.artifact(RESULTS, "{paper}", "figures", "{artifact}", ".png"),
    log:
        layout.log_file(RESULTS, "{paper}/draw_figure_{artifact}.log"),
    params:
        entry=lambda w: PLAN.artifact_identity(w.paper, "figures", w.artifact),
        code=lambda w: digests.draw_code(
            PLAN.artifact_module(w.paper, "figures", w.artifact)
        ),
    run:
        jobs.draw(PLAN, RESULTS, wildcards.paper, "figures", wildcards.artifact, log[0])


rule write_table:
    input:
        lambda w: PLAN.artifact_inputs(RESULTS, w.paper, "tables", w.artifact),
    output:
        csv=layout.artifact(RESULTS, "{paper}", "tables", "{artifact}", ".csv"),
        md=layout.artifact(RESULTS, "{paper}", "tables", "{artifact}", ".md"),
    log:
        layout.log_file(RESULTS, "{paper}/write_table_{artifact}.log"),
    params:
        entry=lambda w: PLAN.artifact_identity(w.paper, "tables", w.artifact),
        code=lambda w: digests.draw_code(
            PLAN.artifact_module(w.paper, "tables", w.artifact)
        ),
    run:
        jobs.draw(PLAN, RESULTS, wildcards.paper, "tables", wildcards.artifact, log[0])
