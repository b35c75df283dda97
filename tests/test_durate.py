"""Duratele capitolelor: rândul „Cât rulează” și tabelul din README vin din referințele cursului."""

from pathlib import Path

import pytest

from curs_compilare.instructor import durate

RADACINA = Path(__file__).resolve().parent.parent


def _referinta(gpu=None, nuclee=None, **secunde):
    return {
        "mediu": {"gpu": gpu or "niciunul (CPU)", "nuclee": nuclee},
        "notebookuri": [{"cale": f"notebooks/{n}.ipynb", "trecut": True, "secunde": s} for n, s in secunde.items()],
    }


def test_aceeasi_durata_in_prima_celula_si_in_readme():
    """Rândul „Cât rulează” al fiecărui capitol și tabelul din README spun aceeași cifră (o singură
    sursă, o singură rotunjire): nu „sub un minut” într-un loc și „46,7 s” în celălalt."""
    import nbformat

    readme = (RADACINA / "README.md").read_text(encoding="utf-8")
    for cale in sorted((RADACINA / "notebooks").glob("*.ipynb")):
        rand_readme = next(r for r in readme.splitlines() if r.startswith(f"| `{cale.name}` |"))
        valori = [v.strip() for v in rand_readme.split("|")[2:-1] if v.strip() != "—"]
        prima = nbformat.read(cale, as_version=4).cells[0].source
        rand = next((r for r in prima.splitlines() if r.startswith(durate.MARCAJ_RAND)), "")
        for valoare in valori:
            assert valoare in rand, f"{cale.name}: „{valoare}” din README lipsește din prima celulă: {rand}"


def test_rand_din_toate_referintele():
    referinte = {
        "gpu": _referinta("NVIDIA H200", a=281.2),
        "procesor": _referinta(nuclee=2, a=169.0),
    }
    rand = durate.rand_durate("notebooks/a.ipynb", referinte)
    assert rand.startswith(durate.MARCAJ_RAND)
    assert "pe un NVIDIA H200, 281 s" in rand
    assert "pe un procesor cu 2 nuclee, fără GPU, 169 s" in rand
    assert durate.rand_durate("notebooks/b.ipynb", referinte) is None


def test_un_notebook_esuat_nu_are_durata():
    referinta = _referinta("NVIDIA H200", a=100.0)
    referinta["notebookuri"][0]["trecut"] = False
    assert durate.durata(referinta, "notebooks/a.ipynb") is None


def test_prima_celula_pune_si_inlocuieste_randul():
    sursa = "# 06 · Titlu\n\n**Durată estimată:** 75 de minute  \n**Cerințe preliminare:** 00–05."
    cu_rand = durate.prima_celula_la_zi(sursa, "**Cât rulează „Run All”:** pe un H200, circa 5 minute  ")
    linii = cu_rand.split("\n")
    assert linii[3].startswith(durate.MARCAJ_RAND) and linii[4].startswith("**Cerințe")
    inlocuit = durate.prima_celula_la_zi(cu_rand, "**Cât rulează „Run All”:** pe un H200, circa 6 minute  ")
    assert inlocuit.count(durate.MARCAJ_RAND) == 1 and "circa 6 minute" in inlocuit
    assert durate.prima_celula_la_zi(cu_rand, None) == sursa
    with pytest.raises(ValueError, match="Durată estimată"):
        durate.prima_celula_la_zi("# Fără durată", "**Cât rulează „Run All”:** x  ")


def test_cursul_e_la_zi_cu_referintele():
    assert durate.sincronizeaza(RADACINA, doar_verifica=True) == [], "rulează `make durate`"
    referinte = durate.citeste_referintele(RADACINA)
    assert set(referinte) == set(durate.REFERINTE), "lipsește o referință a duratelor din assets/"
    readme = (RADACINA / "README.md").read_text(encoding="utf-8")
    for cale in (RADACINA / "notebooks").glob("*.ipynb"):
        assert f"| `{cale.name}` |" in readme, f"tabelul duratelor din README nu are {cale.name}"
