"""Page data in process: the display strings of Module 3's page values and partials (its
build/page_data.py, through scripts/pages/site_data.py), from data with chosen numbers, against strings worked
out by hand (tests/test_pages.py checks the pages through the command itself; these let mutation
testing see which function a test reaches)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from scripts import paths

from scripts.pages import site_data
from tests.support import fixture, this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

PD = M3.code.page_data       # the module's own formatting of its data


def values(data: dict) -> dict:
    """What the module's _metadata.yml holds under `data:`."""
    return {**PD.variables(data, None), "provenance": site_data.provenance_variables(data["provenance"])}


@pytest.fixture
def data() -> dict:
    d = fixture(M3)
    m = d["models"]
    m["rnn"].update(test_nats=1.69594, perplexity=5.45155, bpc=2.44672, parameters=103041, training_steps=1000)
    m["lstm"].update(test_nats=1.6114, perplexity=5.0098, parameters=350593, training_steps=2000)
    m["best_ngram"]["test_nats"] = 1.8326
    g = d["gradient_by_distance"]
    g.update(rnn_spectral_norm_W=5.2, lstm_rnn_ratio_at_50=53.87, chunks=64, chunk_length=200)
    g["forget_gate"].update({"mean": 0.7153, "share_above_0.9": 0.123, "share_above_0.99": 0.053})
    c = d["clipping_demo"]
    c.update(steps=150, lr=2.0, kappa=1.0)
    c["clipped"]["final_loss"], c["unclipped"]["final_loss"] = 2.114, 9.345
    d["provenance"].update(git_commit="0123456789abcdef0123+dirty", started_at="2026-11-29T03:04:05Z",
                           settings="full", seed=0, device="AMD EPYC", device_type="cpu",
                           duration_s={"total": 600.0, "lab": 596.0, "lab_train_lstm": 400.0, "lab_train_rnn": 150.0,
                                       "lab_clipping_demo": 30.0, "lab_ngram": 10.0, "lab_evaluate": 6.0},
                           cpu_count=2, torch_threads=2)
    return d


def test_models_and_comparison(data):
    v = values(data)
    rnn = {"nats": "1.6959", "nats_2dp": "1.70", "ppl": "5.45", "bpc": "2.45", "params": "103,041",
           "steps": "1,000", "d_h": "256"}
    assert {key: v["models"]["rnn"][key] for key in rnn} == rnn
    assert (v["models"]["uniform"]["ppl"], v["models"]["uniform"]["params"]) == ("65", "–")   # 64.99999999999999
    assert (v["models"]["bigram"]["k"], v["models"]["bigram"]["n"]) == ("0.1", "2")
    assert list(v["models"]) == ["uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm"]
    assert v["models"]["rnn"]["label"] == data["models"]["rnn"]["label"]
    # 1.8326 - 1.6114 = 0.2212; 1.8326 - 1.69594 = 0.13666; 5.45155 - 5.0098 = 0.44175; 350593 / 103041 = 3.402
    # each from the numbers the table shows: 1.8326 - 1.6114; 1.8326 - 1.6959; 5.45 - 5.01; 350,593 / 103,041
    assert v["compare"] == {"lstm_lead_nats": "0.22", "rnn_lead_nats": "0.14", "lstm_rnn_ppl_gap": "0.44",
                            "param_ratio": "3.4", "steps_ratio": "twice", "word_trigram_ppl": "1,437"}
    data["models"]["lstm"]["training_steps"] = 3400
    assert values(data)["compare"]["steps_ratio"] == "3.4 times"


def test_gradient_and_clipping(data):
    v = values(data)
    g = v["gradient"]
    assert (g["chunks"], g["chunk_length"], g["spectral_W"]) == ("64", "200", "5.2")
    assert g["ratio_at_50"] == "5.4 × 10¹"                                 # 53.87, as the notebook prints 5.4e+01
    assert (g["forget_mean"], g["forget_share_09"], g["forget_share_099"]) == ("0.715", "12%", "5.3%")
    assert v["clipping"] == {"steps": "150", "lr": "2.0", "kappa": "1", "clipped_final": "2.11",
                             "unclipped_final": "9.35"}                  # 9.345: half up, as on paper
    data["gradient_by_distance"].update(rnn_first_all_zero_distance=None, rnn_naive_norm_zero_distance=149,
                                        rnn_factor_per_character=0.6912, lstm_rnn_ratio_at_50=None)
    g = values(data)["gradient"]
    assert (g["first_all_zero"], g["naive_norm_zero"]) == ("never (within the measured distances)", "149")
    assert g["factor_per_character"] == "0.691"                            # as the notebook prints it (.3f)
    assert g["ratio_at_50"] == "not measurable (the RNN's is exactly 0 there)"


def test_provenance(data):
    v = values(data)
    p = v["provenance"]
    assert (p["date"], p["git_commit"], p["seed"]) == ("2026-11-29", "0123456789ab+dirty", "0")
    assert p["run_phrase"] == "full settings, seed 0, on a CPU, not yet on a Colab T4"
    assert p["lab_compute"] == "10 minutes on 2 CPU cores (AMD EPYC), at full settings; not yet timed on a Colab T4"
    assert v["compute"] == {"phases": "training the LSTM 6.7 min, training the RNN 2.5 min, the clipping demonstration "
                                      "30 s, the rest 16 s", "cpu_count": "2"}
    del data["provenance"]["cpu_count"]                                            # a lab that does not record it
    assert site_data.lab_compute(data["provenance"]).startswith("10 minutes on a CPU (AMD EPYC)")
    gpu = copy.deepcopy(data)
    gpu["provenance"].update(device="Tesla T4", device_type="cuda", duration_s={"total": 40.0, "lab": 29.0})
    p = site_data.provenance_variables(gpu["provenance"])
    assert p["run_phrase"] == "full settings, seed 0, on a GPU (Tesla T4)"
    assert p["lab_compute"] == "1 minute on a GPU (Tesla T4), at full settings"      # 29 s: at least 1
    assert site_data.short_commit("abcdef0123456789") == "abcdef012345"
    assert site_data.short_commit("abc1234+dirty") == "abc1234+dirty"
    assert (v["provenance"]["settings"], v["provenance"]["device"], v["provenance"]["device_type"],
            v["provenance"]["torch"]) == ("full", "AMD EPYC", "cpu", data["provenance"]["torch"])
    gpu["provenance"]["duration_s"]["lab"] = 90.0                                 # 1.5 minutes -> 2
    assert site_data.provenance_variables(gpu["provenance"])["lab_compute"].startswith("2 minutes on a GPU")


def test_results_table_and_provenance_line(data):
    table = PD.results_table(data, values(data))
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 7                                                # header + six models
    assert rows[1].startswith("| Uniform over the 65 characters | – | 4.1744 | 65 |")
    assert rows[5] == ("| RNN, $d_h$ = 256, 1,000 training steps (103,041 parameters) | 3 | 1.6959 | 5.45 | 2.45 |")
    assert "n $\\le$ 5" in rows[4]
    lines = table.split("\n")
    assert lines[0] == "| Model | Lab | Test nats per character | Perplexity | Bits per character |"
    assert lines[1].startswith("|:---") and lines[1].endswith("|:---:|------:|------:|------:|")
    # a pandoc table caption, then the provenance in its own div
    assert lines[8:] == ["", ": Test results on the same test characters, in the same units.", "",
                         "::: {.provenance}", site_data.provenance_line(data["provenance"], M3), ":::", ""]
    labelled = {**data["models"]["rnn"], "label": "RNN (103,041 parameters)"}
    assert PD.table_label(labelled, {"params": "103,041"}) == "RNN (103,041 parameters)"   # not twice
    line = site_data.provenance_line(data["provenance"], M3)
    assert "git commit `0123456789ab+dirty`" in line and "lab source `000000000000`." in line
    assert "seed 0, on AMD EPYC (cpu)" in line


def test_answer_saturation_computes_from_the_shown_norm(data):
    v = values(data)
    text = PD.answer_saturation(v)
    # 1 - 1/5.2 = 0.8077 -> 0.808; sqrt(0.808) = 0.899 -> 0.90; atanh(0.90) = 1.47 -> 1.5;
    # 0.02 * 5.2 = 0.104 -> 0.10; 1 / 0.10 = 10
    for part in ("1 - 1/5.2 = 0.808", "|h| > 0.90", "only about 1.5", "\\approx 0.10$", "factor of about 10 per"):
        assert part in text, part
    for norm, sufficient in (("0.9", True), ("1.0", True), ("1.5", False)):    # "at most 1": vanishing for sure
        v["gradient"]["spectral_W"] = norm
        assert ("sufficient case for vanishing" in PD.answer_saturation(v)) is sufficient, norm
    assert PD.answer_saturation(v | {"gradient": {"spectral_W": "0.9"}}) == (
        "With $\\lVert W \\rVert \\approx$ 0.9 the bound $(1 - h^2)\\,\\lVert W \\rVert$ is below 1 for every $|h|$: "
        "this trained RNN is in the sufficient case for vanishing.\n")


def test_the_measured_saturation_and_the_sentence_the_data_picks(data):
    """Section 4's box: the measured saturation, Equation 8 with it, and the sentence the data picks (above 1: the
    bound allows growth and the lab does not separate the causes; at or below 1: saturation alone forces the fall)."""
    g = data["gradient_by_distance"]
    g["rnn_saturation"].update({"share_abs_h_above_0.9": 0.4512, "mean_tanh_derivative": 0.3049,
                                "bound_factor_per_character": 2.604})
    v = values(data)["gradient"]
    assert (v["saturated_share"], v["mean_tanh_derivative"], v["bound_factor"]) == ("45%", "0.305", "2.60")
    assert v["saturation_verdict"].startswith("above 1: even with the measured saturation the bound allows growth")
    assert "does not separate" in v["saturation_verdict"]
    g["rnn_saturation"].update({"bound_factor_per_character": 1.0, "mean_tanh_derivative": 0.1})
    assert values(data)["gradient"]["saturation_verdict"].startswith("below 1: the measured saturation alone forces")
    assert set(PD.SATURATION_BOX) == {"growth", "vanishing"}


def test_worked_example_rows():
    below_1 = PD.one_unit_row({"w": 0.9, "h": 0.0, "distance": 50, "factor": 0.9})
    assert below_1 == ("| $w = 0.9$, any state | at most 0.9 | over 50 steps: at most $0.9^{50} = 0.005$ "
                       "| the same: 0.005 |")
    saturated = PD.one_unit_row({"w": 2.0, "h": 0.9, "distance": 20, "factor": 0.38000001})
    # 1 - 0.81 = 0.19, times 2 = 0.38; 0.38^20 = 4.0e-9; 2^20 = 1,048,576
    assert saturated == ("| $w = 2$, state saturated at $h_j = 0.9$ | $(1 - 0.81) \\times 2 = 0.38$ | over 20 "
                         "steps: $0.38^{20} \\approx 4 \\times 10^{-9}$ | $10^{6}$ |")
    near_0 = PD.one_unit_row({"w": 2.0, "h": 0.0, "distance": 20, "factor": 2.0})
    assert "state near 0 | $(1 - 0) \\times 2 = 2$" in near_0
    # the factor and h^2 are shown with two decimals: 0.3849 -> 0.38, 0.95^2 = 0.9025 -> 0.9
    assert "$(1 - 0.9) \\times 2 = 0.38$" in PD.one_unit_row({"w": 2.0, "h": 0.95, "distance": 20,
                                                                        "factor": 0.3849})
    for w in (1.0, 1.5):                                   # |w| >= 1: the state matters
        assert "state near 0" in PD.one_unit_row({"w": w, "h": 0.0, "distance": 20, "factor": w})


def test_site_files_hold_the_variables_and_every_partial(data):
    worked = {"provenance": {"lab_source_sha256": "f7711ad74a797d38376c", "torch": "2.13.0", "seed": 0},
              "one_unit_rnn": {"cases": [{"w": 0.9, "h": 0.0, "distance": 50, "factor": 0.9},
                                         {"w": 2.0, "h": 0.0, "distance": 20, "factor": 2.0},
                                         {"w": 2.0, "h": 0.9, "distance": 20, "factor": 0.38}]},
              "temperature": {"logits": [2.0, 1.0, 0.0], "draws": 20000,
                              "rows": [{"tau": 0.5, "probs": [0.86681, 0.11731, 0.01588],
                                        "frequencies": [0.8671, 0.1169, 0.016]},
                                       {"tau": 1.0, "probs": [0.66524, 0.24473, 0.09003],
                                        "frequencies": [0.6609, 0.2453, 0.0938]}]}}
    files = site_data.site_files(M3, data, worked, M3.results)
    generated = {path.name: text for path, text in files.items()}
    # the sentences after the one-unit table, from its shown numbers: 10⁶ against 4 × 10⁻⁹, and 1 - 0.81
    assert yaml.safe_load(generated["_metadata.yml"])["data"]["worked"] == {
        "saturated_h": "0.9", "saturated_h2": "0.81", "saturated_derivative": "0.19", "near_factor": "2",
        "near_distance": "20", "near_product": "10⁶", "saturated_factor": "0.38", "saturated_distance": "20",
        "saturated_product": "4 × 10⁻⁹", "orders_apart": "14",
        # the sentence after the temperature table: the top share at tau = 1 and 0.5, as the table rounds them
        "top_share_tau_1": "0.665", "top_share_tau_half": "0.867"}
    assert set(files) == {M3.metadata_file} | {M3.generated / name for name in generated if name != "_metadata.yml"}
    variables = generated["_metadata.yml"]
    assert variables.startswith("# GENERATED by `python3 -m scripts.pages.site_data` from data/03-sequence-models/results.json")
    assert yaml.safe_load(variables) == {"data": {**values(data), "worked": PD.worked_variables(worked)}}
    # tau = 0.5: z / tau = (4, 2, 0); the shares to three decimals, half up
    assert "| 0.5 | $(4, 2, 0)$ | $(0.867,\\ 0.117,\\ 0.016)$ | $(0.867,\\ 0.117,\\ 0.016)$ |" in \
        generated["_worked-temperature.md"]
    assert "20,000 draws" in generated["_worked-temperature.md"]
    assert "Logits $z_t = (2, 1, 0)$" in generated["_worked-temperature.md"]
    assert "| $w = 0.9$, any state |" in generated["_worked-one-unit.md"]
    assert "def rnn_cell_step(" in generated["_code-rnn-cell-step.md"]
    assert set(generated) == {"_metadata.yml", "_results-table.md", "_answer-saturation.md", "_worked-one-unit.md",
                              "_worked-temperature.md", "_code-rnn-cell-step.md",
                              "_code-lstm-cell-step.md", "_code-sample-with-temperature.md"}
    # readable YAML: unicode as is, keys in the page's order, long lines unbroken
    assert 'ratio_at_50: 5.4 × 10¹' in variables
    assert [line.split(":")[0].strip() for line in variables.splitlines() if line.startswith("  ") and line[2].isalpha()] \
        == ["models", "compare", "gradient", "clipping", "sampling", "compute", "worked", "provenance"]
    assert "    lab_compute: 10 minutes on 2 CPU cores (AMD EPYC), at full settings; not yet timed on a Colab T4\n" in variables
    one_unit = generated["_worked-one-unit.md"].splitlines()
    assert one_unit[0].startswith("| Case | One-step factor") and one_unit[1].startswith("|:---")
    provenance = ["::: {.provenance}", "*Provenance:* `data/03-sequence-models/worked_examples.json`, computed by "
                  "`python3 -m scripts.measure.worked_examples` with the lab's own functions (lab source `f7711ad74a79`), "
                  "torch 2.13.0, seed 0.", ":::"]
    assert one_unit[-5].startswith(": One hidden unit, three cases") and one_unit[-6] == ""
    assert one_unit[-5].endswith(" through the lab's `rnn_cell_step`, in `data/03-sequence-models/worked_examples.json`).")
    assert one_unit[-3:] == provenance and one_unit[-4] == ""
    temperature = generated["_worked-temperature.md"].splitlines()
    assert temperature[0].endswith("by `sample_with_temperature` |") and temperature[1] == "|:---:|:---:|:---:|:---:|"
    assert temperature[-5].endswith("draws (`data/03-sequence-models/worked_examples.json`).") and temperature[-6] == ""
    assert temperature[-3:] == provenance
    assert all(text.endswith("\n") and not text.endswith("\n\n") for text in files.values())


def test_check_names_missing_changed_and_left_over_files(tmp_path):
    files = {M3.metadata_file: "a: 1\n", M3.generated / "_one.md": "one\n"}
    assert site_data.out_of_date(M3, files, tmp_path) == [str(M3.metadata_file), str(M3.generated / "_one.md")]
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert site_data.out_of_date(M3, files, tmp_path) == []
    (tmp_path / M3.metadata_file).write_text("a: 2\n", encoding="utf-8")
    (tmp_path / M3.generated / "_old.md").write_text("old\n", encoding="utf-8")
    assert site_data.leftovers(M3, files, tmp_path) == [M3.generated / "_old.md"]
    assert site_data.out_of_date(M3, files, tmp_path) == [
        str(M3.metadata_file), f"{M3.generated / '_old.md'} (no longer written)"]


def test_the_lstm_boxs_power_comes_from_the_mean_it_shows(data):
    """The box shows the mean to three decimals and its 50th power: a reader who raises the shown 0.715 to the 50th
    gets 5.2e-08, so the page says 5.2 × 10⁻⁸ (the unrounded 0.7153^50 would be 5.3e-08), as the notebook prints
    round(mean, 3) ** 50; the fall is index 50 over index 0."""
    g = data["gradient_by_distance"]
    g["lstm_grad_norm"][0], g["lstm_grad_norm"][1], g["lstm_grad_norm"][50] = 0.4, 0.2, 5.9e-4   # 1.475e-3
    g["lstm_grad_norm"][51] = 1.0
    v = values(data)["gradient"]
    assert v["forget_mean"] == "0.715" and f"{0.715 ** 50:.1e}" == "5.2e-08" and v["forget_mean_pow_50"] == "5.2 × 10⁻⁸"
    assert f"{5.9e-4 / 0.4:.1e}" == "1.5e-03" and v["lstm_fall_50"] == "1.5 × 10⁻³"
    g["lstm_grad_norm"][50] = 5.6e-4                                        # 1.4e-3: index 50 over index 0
    assert values(data)["gradient"]["lstm_fall_50"] == "1.4 × 10⁻³"
    g["forget_gate"]["mean"] = 0.7233108282089233                # shown 0.723: 0.723^50 = 9.1e-08 (unrounded 9.3e-08)
    assert values(data)["gradient"]["forget_mean_pow_50"] == "9.1 × 10⁻⁸"
    g["distance"] = [d + 1 for d in g["distance"]]                           # no distance 0: refused, not guessed
    with pytest.raises(ValueError, match="distance 0 or 50"):
        values(data)


def test_direct_path_variables_and_the_sentence_the_data_picks(data):
    g = data["gradient_by_distance"]
    g["lstm_grad_norm"][0], g["lstm_grad_norm"][50] = 0.5, 0.005            # a fall to 0.01
    g["direct_path"].update({"median": 0.000312, "share_above_0.5": 0.2412, "share_above_0.1": 0.0996,
                             "share_above_0.01": 0.053, "carried_fall": 0.00251, "kept_share_at_0": 0.000556})
    v = values(data)["gradient"]
    assert (v["direct_distance"], v["direct_median"], v["direct_share_05"], v["direct_share_01"],
            v["direct_share_001"], v["direct_carried"]) == ("50", "3.1 × 10⁻⁴", "24%", "10%", "5.3%", "2.5 × 10⁻³")
    assert v["direct_kept_share"] == "5.6 × 10⁻⁴"
    assert v["direct_verdict"].startswith("far less, so most of what reaches 50 characters back comes along")
    for carried, start in ((0.0034, "about the same size"), (0.03, "about the same size"), (0.0301, "more than")):
        g["direct_path"]["carried_fall"] = carried
        assert values(data)["gradient"]["direct_verdict"].startswith(start), carried
    g["direct_path"]["median"] = 0.2149
    assert values(data)["gradient"]["direct_median"] == "0.21"
    g["direct_path"]["median"] = 0.00996
    assert values(data)["gradient"]["direct_median"] == "1.0 × 10⁻²"
    assert set(PD.DIRECT_PATH_VERDICT) == {"same", "less", "more"}


def test_the_direct_paths_share_at_50_divides_the_two_numbers_shown(data):
    """The box shows what the direct path carries (5.4 × 10⁻⁵) and the measured fall (1.4 × 10⁻³) at 50: their
    share is 5.4e-05 / 1.4e-03 = 3.9%, not the unrounded 5.39e-05 / 1.4227e-03 = 3.8%; the other distances,
    whose two numbers the page does not show, divide the data's."""
    g = data["gradient_by_distance"]
    g["lstm_grad_norm"][0], g["lstm_grad_norm"][50] = 1.0, 1.4226589076862008e-3
    g["direct_path"]["carried_fall"] = g["direct_path_by_distance"]["carried_fall"][49] = 5.389778489263984e-05
    v = values(data)["gradient"]
    assert (v["direct_carried"], v["lstm_fall_50"], v["direct_of_measured_50"]) == ("5.4 × 10⁻⁵", "1.4 × 10⁻³", "3.9%")
    fall_25 = g["lstm_grad_norm"][25] / g["lstm_grad_norm"][0]
    g["direct_path_by_distance"]["carried_fall"][24] = 0.123 * fall_25
    assert values(data)["gradient"]["direct_of_measured_25"] == "12%"
    assert values(data)["gradient"]["direct_far_list"] == "25, 50, 100 and 150"


def test_the_temperature_sentence_comes_from_the_table_and_stops_when_it_no_longer_holds():
    """Section 7 says halving the temperature raises the top token's share 'from X to Y': both from the worked
    table's rows as it shows them, and a table where it does not rise (or lacks a row) stops the page data."""
    cases = [{"w": 2.0, "h": 0.0, "distance": 20, "factor": 2.0}, {"w": 2.0, "h": 0.9, "distance": 20, "factor": 0.38}]
    def worked(rows):
        return {"one_unit_rnn": {"cases": cases}, "temperature": {"logits": [2.0, 1.0, 0.0], "draws": 10, "rows": rows}}
    row = lambda tau, top: {"tau": tau, "probs": [top, 1 - top, 0.0], "frequencies": [top, 1 - top, 0.0]}
    got = PD.worked_variables(worked([row(0.5, 0.86681), row(1.0, 0.66524), row(2.0, 0.5)]))
    assert (got["top_share_tau_1"], got["top_share_tau_half"]) == ("0.665", "0.867")
    for rows in ([row(0.5, 0.6), row(1.0, 0.7)], [row(0.5, 0.8)], [row(1.0, 0.6652)]):
        with pytest.raises(ValueError):
            PD.worked_variables(worked(rows))
