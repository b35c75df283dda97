"""Uneltele capitolului 03 care țin contabilitatea în afara celulelor: tabelul și graficele
lanțului, notele care diferă între GPU și procesor și cifrele înregistrate pentru raportul de
referință (aceleași chei, unități și descrieri ca atunci când erau scrise în celule)."""

import types

import matplotlib

matplotlib.use("Agg")

import pytest

from curs_compilare import cifre
from curs_compilare.capitole import cap03_fuziune as fuziune
from curs_compilare.masurare import Raport


def _raport(valoare, runde=5):
    return Raport(valoare, 0.9 * valoare, 1.1 * valoare, runde)


def test_tabelul_latimii_de_banda_are_un_rand_pe_marime():
    tabel = fuziune.tabel_latime_banda([256, 2**20], {"eager": [10.0, 100.0], "compilat": [40.0, 400.0]}, 800.0)
    randuri = tabel.splitlines()
    assert len(randuri) == 3
    assert randuri[0].split() == ["tensor", "eager", "compilat", "accelerare", "din", "plafon"]
    assert randuri[1].split() == ["1", "KiB", "10", "GB/s", "40", "GB/s", "4×", "5%"]
    assert randuri[2].split() == ["4", "MiB", "100", "GB/s", "400", "GB/s", "4×", "50%"]
    assert cifre.probleme_de_format(tabel) == []


def test_graficul_lantului_are_cele_doua_curbe_si_plafonul():
    debite = {"eager": [(10.0, 9.0, 11.0), (100.0, 90.0, 110.0)], "compilat": [(20.0, 19.0, 21.0), (400.0, 390.0, 410.0)]}
    ax = fuziune.grafic_lant_pe_dimensiuni([256, 2**20], debite, 800.0)
    etichete = [linie.get_label() for linie in ax.get_lines()]
    assert "eager (4 kernel-uri)" in etichete and "compilat (1 kernel)" in etichete
    compilat = next(l for l in ax.get_lines() if l.get_label() == "compilat (1 kernel)")
    assert list(compilat.get_ydata()) == [20.0, 400.0] and list(compilat.get_xdata()) == [1024, 4 * 2**20]
    assert ax.get_title() == "(x * 2 + 1).relu() * 3: lățimea de bandă utilă"


def test_nota_ceasului_de_perete_doar_pe_gpu():
    masuratori = [types.SimpleNamespace(ceas="perete"), types.SimpleNamespace(ceas="gpu"), types.SimpleNamespace(ceas="perete")]
    text = fuziune.nota_ceas_perete([256, 2**20, 2**10], masuratori, are_gpu=True)
    assert text.startswith("Măsurate cu ceasul de perete (")
    assert text.endswith("procesorul mașinii): 1 KiB, 4 KiB")
    assert fuziune.nota_ceas_perete([256, 2**20, 2**10], masuratori, are_gpu=False) == ""
    toate_gpu = [types.SimpleNamespace(ceas="gpu")] * 3
    assert fuziune.nota_ceas_perete([256, 2**20, 2**10], toate_gpu, are_gpu=True) == ""


def test_graficul_sinusurilor_are_etichete_in_formatul_cursului():
    ax = fuziune.grafic_sinusuri([1, 4, 16, 1024], [900.0, 850.0, 300.0, 5.0], 1000.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "4", "16", "1 024"]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    plafon = next(l for l in ax.get_lines() if l.get_label() == "plafonul de copiere măsurat")
    assert list(plafon.get_ydata()) == [1000.0, 1000.0]


@pytest.mark.parametrize("are_gpu, profil, accelerare, gbps_compilat, asteptat", [
    (True, "complet", 2.0, 500.0, "lanțul e limitat de calcul"),
    (True, "complet", 2.0, 900.0, "lanțul e încă limitat de memorie"),
    (True, "complet", 2.9, 500.0, "lanțul e încă limitat de memorie"),
    (True, "rapid", 2.0, 500.0, "în profilul rapid, tensorii sunt prea mici pentru ea."),
    (False, "complet", 2.0, 500.0, "pe procesor, memoria, cache-urile"),
    (False, "rapid", 2.0, 500.0, "în profilul rapid, tensorii sunt prea mici pentru ea."),
])
def test_interpretarea_lui_gelu_sin_cos(are_gpu, profil, accelerare, gbps_compilat, asteptat):
    text = fuziune.interpretare_gelu_sin_cos(_raport(accelerare), gbps_compilat, 1000.0, are_gpu, profil)
    assert asteptat in text
    assert text.startswith("Interpretarea:") == (are_gpu and profil == "complet")


@pytest.mark.parametrize("are_gpu, cauza", [(True, "biblioteca are un kernel bine reglat"), (False, "kernel C++ vectorizat")])
def test_concluzia_softmax_spune_cauza_potrivita_masinii(are_gpu, cauza):
    lent = fuziune.concluzie_softmax(_raport(0.5), are_gpu)
    assert lent.startswith("Softmax-ul naiv compilat e mai lent decât torch.softmax") and cauza in lent
    rapid = fuziune.concluzie_softmax(_raport(2.0), are_gpu)
    assert rapid.startswith("Softmax-ul naiv compilat e de 2 ori mai rapid") and cauza not in rapid


def test_graficul_exercitiului_3_pune_modelul_langa_masuratoare():
    masurate = {"A": _raport(1.0), "B": _raport(5.0)}
    ax = fuziune.grafic_model_si_masurat(masurate, {"A": 1.0, "B": 6.0, "C": 1.0})
    inaltimi = [bara.get_height() for bara in ax.patches]
    assert inaltimi == [1.0, 6.0, 1.0, 5.0]  # modelul, apoi măsurătoarea, doar pentru literele măsurate
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B"]


def test_inregistrarile_au_cheile_unitatile_si_descrierile_capitolului(cifre_notate):
    kerneluri = types.SimpleNamespace(numar=4), types.SimpleNamespace(numar=1)
    rezultate = [
        fuziune.inregistreaza_kernelurile(*kerneluri),
        fuziune.inregistreaza_lantul(800.0, 720.0, 0.9, _raport(3.5), 2**24 * 4),
        fuziune.inregistreaza_formele(700.0, 650.0, 2**28 * 4),
        fuziune.inregistreaza_sinusurile([1, 4, 16], [900.0, 800.0, 300.0]),
        fuziune.inregistreaza_gelu_sin_cos(_raport(2.5), 600.0, 800.0),
        fuziune.inregistreaza_softmax(500.0, 700.0, "8 192 × 8 192"),
        fuziune.inregistreaza_triton(3000.0, 3100.0, 2**28 * 4),
        fuziune.inregistreaza_exercitiul_3({"A": _raport(1.0), "B": _raport(3.0)}),
    ]
    assert rezultate == [None] * len(rezultate)  # o celulă care se termină cu ele nu lasă Out[]
    cifre_scrise = {c["cheie"]: (c["valoare"], c["unitate"], c["descriere"]) for c in cifre_notate()}
    assert cifre_scrise == {
        "03.kerneluri_eager": (4.0, "kernel-uri", "(x*2+1).relu()*3, eager"),
        "03.kerneluri_compilat": (1.0, "kernel-uri", "(x*2+1).relu()*3, compilat"),
        "03.plafon_copiere_gbps": (800.0, "GB/s", "plafonul de copiere (citire + scriere)"),
        "03.lant_compilat_gbps": (720.0, "GB/s", "lanțul compilat pe 64 MiB"),
        "03.lant_compilat_din_plafon": (90.0, "%", "lanțul compilat, ca procent din plafonul de copiere"),
        "03.lant_accelerare": (3.5, "×", "lanțul compilat față de eager, pe 64 MiB"),
        "03.lant_static_gbps": (700.0, "GB/s", "lanțul compilat cu dynamic=False, 1 GiB"),
        "03.lant_dinamic_gbps": (650.0, "GB/s", "lanțul compilat cu dynamic=True, 1 GiB"),
        "03.sinusuri_1_gbps": (900.0, "GB/s", "sin(x) compilat, lățime de bandă utilă"),
        "03.sinusuri_max_gbps": (300.0, "GB/s", "16 sinusuri compilate, lățime de bandă utilă"),
        "03.gelu_sin_cos_accelerare": (2.5, "×", "cos(sin(gelu(x))) compilat față de eager"),
        "03.gelu_sin_cos_din_plafon": (75.0, "%", "cos(sin(gelu(x))) compilat, procent din plafon"),
        "03.softmax_biblioteca_gbps": (500.0, "GB/s", "torch.softmax pe 8 192 × 8 192"),
        "03.softmax_compilat_gbps": (700.0, "GB/s", "softmax naiv compilat pe 8 192 × 8 192"),
        "03.triton_de_mana_gbps": (3000.0, "GB/s", "lanțul în Triton de mână, 1 GiB"),
        "03.triton_inductor_gbps": (3100.0, "GB/s", "lanțul generat de Inductor, 1 GiB"),
        "03.triton_fata_de_inductor": (pytest.approx(100 * 3000 / 3100), "%", "Triton de mână, procent din viteza lui Inductor"),
        "03.exercitiul3_A": (1.0, "×", "exercițiul 3, funcția A: compilat față de eager"),
        "03.exercitiul3_B": (3.0, "×", "exercițiul 3, funcția B: compilat față de eager"),
    }
    # rapoartele își aduc intervalul rundelor
    accelerare = next(c for c in cifre_notate() if c["cheie"] == "03.lant_accelerare")
    assert accelerare["interval"] == [pytest.approx(3.15), pytest.approx(3.85)]
