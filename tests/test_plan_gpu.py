"""Planul rulărilor pe GPU (`instructor.plan_gpu`): pașii referinței acoperă fiecare notebook o singură
dată, cu capitolul lângă soluția lui, în grupuri care încap în limita unui pas; pasul întâi al
referinței începe raportul, ceilalți îl completează."""

from pathlib import Path

from curs_compilare.instructor import plan_gpu

RADACINA = Path(__file__).resolve().parent.parent


def test_grupurile_incap_in_limita_si_pastreaza_ordinea():
    durate = {"a": 100.0, "b": 300.0, "c": 200.0, "d": 600.0, "e": 50.0}
    grupuri = plan_gpu.grupuri_referinta(list("abcde"), durate, limita_s=450)
    assert grupuri == [["a", "b"], ["c"], ["d"], ["e"]]
    assert plan_gpu.grupuri_referinta(["nou"], {}, 450) == [["nou"]]  # un capitol fără durată are una implicită


def test_referinta_acopera_fiecare_notebook_o_data():
    pasi = plan_gpu.pasii(RADACINA)
    referinta = [p for p in pasi if p.nume.startswith("referința")]
    toate = sorted(p.relative_to(RADACINA).as_posix() for d in ("notebooks", "solutions") for p in (RADACINA / d).glob("*.ipynb"))
    acoperite = [c for p in referinta for c in p.comenzi[0].split() if c.endswith(".ipynb")]
    assert sorted(acoperite) == toate and len(acoperite) == len(set(acoperite))
    assert "--completeaza" not in referinta[0].comenzi[0]
    assert all("--completeaza build/referinta/rezultate.json" in p.comenzi[0] for p in referinta[1:])
    assert all(p.secunde <= plan_gpu.LIMITA_PAS_S or len(p.comenzi[0].split(".ipynb")) == 2 for p in referinta)
    # capitolul înaintea soluției lui
    for capitol in (RADACINA / "notebooks").glob("*.ipynb"):
        cap = capitol.relative_to(RADACINA).as_posix()
        sol = next(c for c in acoperite if c.startswith("solutions/" + capitol.name[:3]))
        assert acoperite.index(cap) < acoperite.index(sol)
    colab = [c for p in pasi if p.nume.startswith("profilul Colab") for c in p.comenzi]
    assert all(f"notebooks/{c.name}" in " ".join(colab) for c in (RADACINA / "notebooks").glob("*.ipynb"))
    assert "--uneste" in colab[-1]


def test_lista_si_un_pas_gresit(capsys):
    assert plan_gpu.main(["--lista"]) == 0
    assert "1. diagnoza" in capsys.readouterr().out
    assert plan_gpu.main(["--pas", "999"]) == 2


def test_duratele_vazute_pe_gpu_impart_planul(tmp_path):
    """O durată văzută pe un GPU înlocuiește estimarea din procesor; un notebook care n-a terminat stă singur
    într-un pas; fiecare notebook al referinței are limita lui, ca un pas să nu treacă de comanda lui."""
    (tmp_path / "assets" / "plan_gpu").mkdir(parents=True)
    (tmp_path / "assets" / "referinta_cpu").mkdir(parents=True)
    (tmp_path / "assets" / "referinta_cpu" / "rezultate.json").write_text(
        '{"notebookuri": [{"cale": "notebooks/a.ipynb", "trecut": true, "secunde": 10}]}', encoding="utf-8")
    assert plan_gpu._durate_cunoscute(tmp_path) == {"notebooks/a.ipynb": 10 * plan_gpu.FACTOR_DIN_PROCESOR}
    (tmp_path / plan_gpu.DURATE_OBSERVATE).write_text(
        '{"notebookuri": {"notebooks/a.ipynb": {"secunde": 99}, "notebooks/b.ipynb": {"secunde": null, "secunde_minim": 554}}}',
        encoding="utf-8")
    durate = plan_gpu._durate_cunoscute(tmp_path)
    assert durate == {"notebooks/a.ipynb": 99.0, "notebooks/b.ipynb": plan_gpu.LIMITA_PAS_S}
    assert plan_gpu.grupuri_referinta(["notebooks/a.ipynb", "notebooks/b.ipynb"], durate) == [["notebooks/a.ipynb"],
                                                                                            ["notebooks/b.ipynb"]]
    referinta = [p for p in plan_gpu.pasii(RADACINA) if p.nume.startswith("referința")]
    assert all(f"--limita-notebook {plan_gpu.LIMITA_NOTEBOOK_S:.0f}" in p.comenzi[0] for p in referinta)
    assert (RADACINA / plan_gpu.DURATE_OBSERVATE).is_file()
