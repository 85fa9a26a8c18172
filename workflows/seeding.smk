# Stage: seeding rounds (experiments/verdicts/seeding.py says what they do and why). Round r is
# a checkpoint: its job judges every reproduction claim on the starting seeds and the rounds
# before it, and writes the schedule of the runs round r adds (the claim cells still
# undecided, doubled, within the cap and the budget). Its runs are simulated and aggregated
# like the baseline's, under <paper>/<experiment>/seeds/round<r>/ (sharing results/runs/ by
# key), and round r+1 reads them. The first round that adds no runs ends the rounds; the
# reports read every round's tables (seed_round_inputs). A local job: it reads every paper's
# metrics and counts its runs into the progress lines.


localrules:
    seed_round,


checkpoint seed_round:
    input:
        metrics=PLAN.all_metrics(RESULTS),
        earlier=lambda w: seed_round_inputs(int(w.round) - 1),
        experiment_files=list(PLAN.files.values()),
    output:
        layout.seed_schedule(RESULTS, "{round}"),
    log:
        layout.log_file(RESULTS, "seed_rounds/round{round}.log"),
    params:
        policy=f"cap={PLAN.policy.cap} budget={PLAN.policy.budget}",
        code=digests.stage_code("seeding"),
    run:
        PROGRESS.total += jobs.seed_round(
            PLAN, int(wildcards.round), input.earlier, output[0], log[0]
        )


use rule simulate_batch as simulate_seed_batch with:
    output:
        record=layout.batch_record(
            RESULTS, "{paper}", "{experiment}", "{batch}", seed_round="{round}"
        ),
    log:
        layout.log_file(
            RESULTS,
            "{paper}/{experiment}/seeds/round{round}/simulate_batch_{batch}.log",
        ),


use rule aggregate_experiment as aggregate_seed_round with:
    output:
        **{
            kind: layout.experiment_table(
                RESULTS, "{paper}", "{experiment}", kind, seed_round="{round}"
            )
            for kind in layout.TABLE_KINDS
        },
    log:
        layout.log_file(
            RESULTS, "{paper}/{experiment}/seeds/round{round}/aggregate.log"
        ),
