# Stage: the figures and tables each experiment file names, drawn by figures/<paper>.py
# (or the module an entry names, e.g. figures.generic for any sweep).


def artifact_inputs(kind):
    def inputs(w):
        artifact = PLAN.artifact(w.paper, kind, w.artifact)
        tables = PLAN.experiment_tables(RESULTS, w.paper, artifact["experiment"])
        module_file = (
            artifact.get("module", f"figures.{w.paper}").replace(".", "/") + ".py"
        )
        return [tables["metrics"], tables["series"], module_file, "figures/common.py"]

    return inputs


rule draw_figure:
    input:
        artifact_inputs("figures"),
    output:
        f"{RESULTS}/{{paper}}/figures/{{artifact}}.png",
    log:
        "logs/{paper}/draw_figure_{artifact}.log",
    run:
        wf.draw(PLAN, RESULTS, wildcards.paper, "figures", wildcards.artifact, log[0])


rule write_table:
    input:
        artifact_inputs("tables"),
    output:
        csv=f"{RESULTS}/{{paper}}/tables/{{artifact}}.csv",
        md=f"{RESULTS}/{{paper}}/tables/{{artifact}}.md",
    log:
        "logs/{paper}/write_table_{artifact}.log",
    run:
        wf.draw(PLAN, RESULTS, wildcards.paper, "tables", wildcards.artifact, log[0])
