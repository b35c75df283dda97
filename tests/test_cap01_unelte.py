"""Uneltele capitolului 01 (`curs_compilare.capitole.cap01_prima_compilare`): ce tipăresc, ce
notează în registrul de cifre (cheile, unitățile și marcajele de dinainte, din celule) și ce
desenează."""

import types

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from curs_compilare.capitole import cap01_prima_compilare as unelte  # noqa: E402
from curs_compilare.masurare import Comparatie, Masuratoare, Raport  # noqa: E402


def _m(secunde):
    return Masuratoare(secunde, 0.9 * secunde, 1.1 * secunde, 30, "u", mediane_runde=(secunde,) * 3, ceas="gpu")


def _comparatie(eager=0.006, compilat=0.002):
    return Comparatie({"eager": _m(eager), "compilat": _m(compilat)}, ceas="gpu")


@pytest.mark.parametrize("functie, capat", [
    (unelte.inregistreaza_inferenta, "inferenta"),
    (unelte.inregistreaza_antrenarea, "antrenare"),
])
def test_cifrele_inferentei_si_ale_antrenarii(cifre_notate, functie, capat):
    functie(_comparatie(), 12.5)
    prima, eager, compilat, accelerare = cifre_notate()
    assert [c["cheie"] for c in (prima, eager, compilat, accelerare)] == [
        f"01.{capat}_prima_apelare_s", f"01.{capat}_eager_ms", f"01.{capat}_compilata_ms", f"01.{capat}_accelerare"]
    assert [c["unitate"] for c in (prima, eager, compilat, accelerare)] == ["s", "ms", "ms", "×"]
    assert prima["valoare"] == 12.5 and prima["depinde_de_procesor"] is True
    assert eager["valoare"] == pytest.approx(6.0) and compilat["valoare"] == pytest.approx(2.0)
    assert accelerare["valoare"] == pytest.approx(3.0) and accelerare["depinde_de_procesor"] is False
    assert all(c["descriere"].startswith("ReteaTransformer, ") for c in (prima, eager, compilat, accelerare))


@pytest.mark.parametrize("raport, prag, asteptat", [
    ((1.01, 0.95, 1.1), 40, "în limita zgomotului"),
    ((0.8, 0.75, 0.85), None, "nu se amortizează"),
    ((1.5, 1.4, 1.6), 12, "Compilarea se amortizează după 12 pași de antrenare."),
])
def test_dupa_cati_pasi_se_amortizeaza(capsys, raport, prag, asteptat):
    unelte.raporteaza_amortizarea(Raport(*raport, runde=5), prag)
    text = capsys.readouterr().out
    assert asteptat in text and text.count("\n") == 1


def test_graficul_are_inferenta_si_antrenarea():
    fig = unelte.grafic_inferenta_si_antrenare(_comparatie(), _comparatie(0.03, 0.02))
    titluri = [ax.get_title() for ax in fig.axes]
    assert titluri == ["Inferență: evaluarea unui lot", "Pas de antrenare"]
    assert [len(ax.patches) for ax in fig.axes] == [2, 2]
    plt.close("all")


def test_incetinirea_se_explica_doar_cand_e_clara(capsys):
    mic = types.SimpleNamespace(are_gpu=False, profil="complet")
    unelte.explica_incetinirea(Raport(1.4, 1.3, 1.5, 5), Raport(1.0, 0.95, 1.05, 5), mic, 1000, 64)
    assert capsys.readouterr().out == ""
    unelte.explica_incetinirea(Raport(0.5, 0.45, 0.55, 5), Raport(1.4, 1.3, 1.5, 5), mic, 1000, 64)
    text = capsys.readouterr().out
    assert text.count("\n") == 1 and "la evaluarea unui lot" in text and "(0,5×)" in text
    assert "1 000 de parametri, 64 de jetoane pe lot" in text
    mare = types.SimpleNamespace(are_gpu=True, profil="complet")
    unelte.explica_incetinirea(Raport(0.5, 0.45, 0.55, 5), Raport(1.4, 1.3, 1.5, 5), mare, 1000, 64)
    assert "modelul de aici e mic" not in capsys.readouterr().out


def test_ocuparea_se_noteaza_pe_variante(cifre_notate):
    ocupare = types.SimpleNamespace(lucru_pe_pas_s=0.0125, parte=0.97)
    unelte.inregistreaza_ocuparea({"eager": ocupare, "compilat": ocupare})
    chei = [(c["cheie"], c["unitate"]) for c in cifre_notate()]
    assert chei == [("01.antrenare_gpu_lucru_eager_ms", "ms"), ("01.antrenare_gpu_ocupat_eager", "%"),
                    ("01.antrenare_gpu_lucru_compilat_ms", "ms"), ("01.antrenare_gpu_ocupat_compilat", "%")]
    valori = [c["valoare"] for c in cifre_notate()]
    assert valori == pytest.approx([12.5, 97.0, 12.5, 97.0])


def test_fara_ocupare_spune_de_ce_pe_procesor_si_pe_gpu(capsys):
    unelte.explica_lipsa_ocuparii(False)
    pe_procesor = capsys.readouterr().out
    assert "Fără GPU" in pe_procesor and "profilerul n-a putut" not in pe_procesor.lower()
    unelte.explica_lipsa_ocuparii(True)
    pe_gpu = capsys.readouterr().out
    assert "Profilerul n-a putut urmări GPU-ul" in pe_gpu and "Fără GPU" not in pe_gpu


def test_accelerarea_in_cuvinte():
    assert unelte.in_cuvinte(Raport(1.5, 1.4, 1.6, 5)).endswith(": varianta compilată e mai rapidă")
    assert unelte.in_cuvinte(Raport(0.5, 0.4, 0.6, 5)).endswith(": varianta compilată e mai lentă")
    assert unelte.in_cuvinte(Raport(1.0, 0.9, 1.1, 5)).endswith(": la fel, în limita zgomotului")


def test_accelerarile_de_referinta_doar_pe_procesor(capsys, monkeypatch):
    referinte = {"01.inferenta_accelerare": 1.3, "01.antrenare_accelerare": 1.2}
    monkeypatch.setattr(unelte.cifre, "cifra_referinta",
                        lambda cheie: {"valoare": referinte[cheie], "gpu": "GPU-ul X"} if cheie in referinte else None)
    unelte.referinta_accelerarilor(are_gpu=True)
    assert capsys.readouterr().out == ""
    unelte.referinta_accelerarilor(are_gpu=False)
    text = capsys.readouterr().out
    assert "Pe GPU-ul X" in text and "1,3× la inferență, 1,2× la antrenare" in text
    del referinte["01.antrenare_accelerare"]
    unelte.referinta_accelerarilor(are_gpu=False)
    assert capsys.readouterr().out == ""
