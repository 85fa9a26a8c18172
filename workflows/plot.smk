# Stage: the figures and tables each experiment file names, drawn by figures/<paper>.py
# (or the module an entry names, e.g. figures.generic for any sweep). A drawing reads its
# experiment's tables and its own entry of the file (`entry`, a digest): editing one figure
# entry redraws that figure only.


rule draw_figure:
    input:
        lambda w: PLAN.artifact_inputs(RESULTS, w.paper, "figures", w.artifact),
    output:
        f"{RESULTS}/{{paper}}/figures/{{artifact}}.png",
    log:
        "logs/{paper}/draw_figure_{artifact}.log",
    params:
        entry=lambda w: PLAN.artifact_identity(w.paper, "figures", w.artifact),
    run:
        wf.draw(PLAN, RESULTS, wildcards.paper, "figures", wildcards.artifact, log[0])


rule write_table:
    input:
        lambda w: PLAN.artifact_inputs(RESULTS, w.paper, "tables", w.artifact),
    output:
        csv=f"{RESULTS}/{{paper}}/tables/{{artifact}}.csv",
        md=f"{RESULTS}/{{paper}}/tables/{{artifact}}.md",
    log:
        "logs/{paper}/write_table_{artifact}.log",
    params:
        entry=lambda w: PLAN.artifact_identity(w.paper, "tables", w.artifact),
    run:
        wf.draw(PLAN, RESULTS, wildcards.paper, "tables", wildcards.artifact, log[0])
