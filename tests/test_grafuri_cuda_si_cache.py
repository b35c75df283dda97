"""Unealta capitolelor 04 și 05: modelul din straturi mici, costul lansărilor, latența pe
loturi, cache-ul măsurat în procese noi, completarea rezultatelor de referință."""

import pytest
import torch
from torch import nn

from curs_compilare import grafice
from curs_compilare.capitole import cap05_cache as cache_compilare
from curs_compilare.capitole import cap04_grafuri_cuda as grafuri_cuda
from curs_compilare.instructor import validare
from curs_compilare.masurare import masoara
from curs_compilare.modele import ConfiguratieTransformer


def test_stiva_mica_are_straturile_cerute_si_nu_schimba_generatorul():
    stare = torch.random.get_rng_state()
    model = grafuri_cuda.stiva_mica(adancime=3, latime=8)
    assert torch.equal(stare, torch.random.get_rng_state())
    assert not model.training
    liniare = [m for m in model if isinstance(m, nn.Linear)]
    assert len(liniare) == 3 and all(m.in_features == 8 for m in liniare)
    assert sum(isinstance(m, nn.GELU) for m in model) == 3
    # aceeași sămânță, aceleași ponderi
    assert torch.equal(liniare[0].weight, grafuri_cuda.stiva_mica(3, 8)[0].weight)


def test_cost_lansari_numara_operatiile_pe_cpu():
    model = grafuri_cuda.stiva_mica(adancime=4, latime=16)
    with torch.no_grad():
        cost = grafuri_cuda.cost_lansari(model, torch.randn(1, 16), timp_minim_s=0.02)
    assert cost.numar_kerneluri == 8  # addmm și gelu, pentru fiecare strat
    assert len(cost.kerneluri) == 8 and cost.kerneluri[0].durata_us > 0
    assert cost.perete_s > 0 and cost.timp_kerneluri_s > 0
    assert cost.perete_pe_kernel_us == pytest.approx(cost.perete_us / 8)
    # pe procesor: operațiile față de timpul de perete, cel mult 100% (profilerul le încetinește)
    assert cost.ocupare_gpu is None
    assert cost.ocupare == pytest.approx(min(1.0, cost.timp_kerneluri_s / cost.perete_s))


def test_latente_pe_loturi_compara_si_masoara_fiecare_lot():
    model = grafuri_cuda.stiva_mica(adancime=2, latime=8)
    latente = grafuri_cuda.latente_pe_loturi(model, [2], timp_minim_s=0.02)
    assert set(latente) == {"eager", "reduce-overhead"}
    assert all(len(lista) == 1 and lista[0].mediana_s > 0 for lista in latente.values())
    # eager și compilatul au fost măsurate în aceleași runde: raportul se face rundă cu rundă
    assert len(latente["eager"][0].mediane_runde) == len(latente["reduce-overhead"][0].mediane_runde) >= 5


def test_ceasul_de_perete_ocoleste_do_bench():
    m = masoara(lambda: None, pe_gpu=True, ceas="perete", timp_minim_s=0.01)
    assert m.ceas == "perete" and m.unealta == "ceasul de perete, timeit"
    assert m.depinde_de_procesor


def test_grafic_de_debit_in_tflops():
    import matplotlib

    matplotlib.use("Agg")
    ax = grafice.grafic_latime_banda({"eager": 500.0, "max-autotune": 700.0}, 800.0, unitate="TFLOP/s",
                                     marime="debit de calcul", eticheta_plafon="vârful")
    texte = [t.get_text() for t in ax.texts]
    assert any("700 TFLOP/s (88% din plafon)" in t for t in texte)
    assert "TFLOP/s" in ax.get_xlabel()


def test_procesul_nou_care_esueaza_spune_de_ce(tmp_path):
    # nr_capete nu împarte dim_model: procesul nou ridică ValueError înainte de orice compilare
    gresita = ConfiguratieTransformer.__new__(ConfiguratieTransformer)
    object.__setattr__(gresita, "__dict__", dict(vocabular=16, dim_model=10, nr_capete=3, nr_straturi=1, lungime=4, marime_lot=2))
    with pytest.raises(RuntimeError, match="dim_model"):
        cache_compilare.primul_apel_in_proces_nou(tmp_path / "cache", gresita, incalzeste=False)
    assert cache_compilare.are_artefacte_cache()


def test_procesul_nou_incalzeste_compilatorul_inaintea_timpilor(tmp_path):
    """Procesul nou plătește taxa primei compilări pe o funcție mică, într-un cache temporar,
    înaintea timpilor: încălzirea e raportată separat, iar dosarul cache-ului măsurat nu o conține.
    Modelul e cel al capitolului 05 în profilul rapid (celula proceselor noi): kernel-urile lui C++ sunt
    aceleași, deci compilatorul cu cache al testelor le compilează o singură dată pentru amândouă."""
    mica = ConfiguratieTransformer(vocabular=256, dim_model=32, nr_capete=2, nr_straturi=1, lungime=16, marime_lot=4)
    rezultat = cache_compilare.primul_apel_in_proces_nou(tmp_path / "cache", mica, incalzeste=True)
    assert rezultat.incalzire_s is not None and rezultat.incalzire_s > 0
    assert rezultat.pas_s > 0 and rezultat.proces_s > rezultat.incalzire_s + rezultat.pas_s


def test_completeaza_inlocuieste_doar_notebookurile_executate():
    vechi = {
        "mediu": {"gpu": "vechi"},
        "notebookuri": [
            {"cale": "notebooks/00_a.ipynb", "trecut": True, "secunde": 10.0, "eroare": None},
            {"cale": "notebooks/04_b.ipynb", "trecut": False, "secunde": 5.0, "eroare": "x"},
            {"cale": "solutions/00_a_solutii.ipynb", "trecut": True, "secunde": 2.0, "eroare": None},
        ],
        "cifre": [
            {"cheie": "00.x", "valoare": 1.0, "notebook": "notebooks/00_a.ipynb"},
            {"cheie": "04.vechi", "valoare": 2.0, "notebook": "notebooks/04_b.ipynb"},
        ],
    }
    nou = {
        "mediu": {"gpu": "nou"},
        "secunde_total": 7.0,
        "notebookuri": [{"cale": "notebooks/04_b.ipynb", "trecut": True, "secunde": 7.0, "eroare": None}],
        "cifre": [{"cheie": "04.nou", "valoare": 3.0, "notebook": "notebooks/04_b.ipynb"}],
    }
    date = validare.completeaza(vechi, nou)
    assert [r["cale"] for r in date["notebookuri"]] == [
        "notebooks/00_a.ipynb", "notebooks/04_b.ipynb", "solutions/00_a_solutii.ipynb"]
    assert all(r["trecut"] for r in date["notebookuri"])
    assert [c["cheie"] for c in date["cifre"]] == ["00.x", "04.nou"]
    assert date["secunde_total"] == pytest.approx(19.0)
    assert date["mediu"] == {"gpu": "nou"}


def test_fazele_apelurilor_pe_cpu_nu_au_grafuri():
    model = grafuri_cuda.stiva_mica(adancime=2, latime=8)
    faze = grafuri_cuda.fazele_apelurilor(model, torch.randn(1, 8), apeluri=3)
    assert [f.numar for f in faze] == [1, 2, 3]
    assert all(f.timp_s > 0 for f in faze)
    if not torch.cuda.is_available():
        assert all(f.stare == grafuri_cuda.StareGrafuri(None, 0) for f in faze)
        assert faze[0].stare.descriere == "fără grafuri CUDA"


def test_numele_starilor_acopera_starile_arborelui_de_grafuri():
    from torch._inductor.cudagraph_trees import ExecutionState

    assert set(grafuri_cuda.NUME_STARI) == {s.name for s in ExecutionState}


@pytest.mark.parametrize("profil, incalzeste", [("rapid", False), ("complet", True)])
def test_procesul_nou_se_incalzeste_implicit_doar_in_afara_profilului_rapid(monkeypatch, tmp_path, profil, incalzeste):
    """În profilul rapid (testele, verificarea mașinii), încălzirea ar costa cât o compilare în
    fiecare proces nou, pentru cifre care nu spun nimic: implicit, procesul nu se încălzește."""
    import json
    import subprocess

    cereri = []

    def ruleaza(comanda, **_):
        cereri.append(json.loads(comanda[-1]))
        return subprocess.CompletedProcess(comanda, 0, stdout='REZULTAT {"pas_s": 0.5}\n', stderr="")

    monkeypatch.setenv("CURS_PROFIL", profil)
    monkeypatch.setattr(cache_compilare.subprocess, "run", ruleaza)
    mica = ConfiguratieTransformer(vocabular=16, dim_model=8, nr_capete=2, nr_straturi=1, lungime=4, marime_lot=2)
    assert cache_compilare.primul_apel_in_proces_nou(tmp_path / "cache", mica).pas_s == 0.5
    cache_compilare.primul_apel_in_proces_nou(tmp_path / "cache", mica, incalzeste=True)
    assert [c["incalzeste"] for c in cereri] == [incalzeste, True]
