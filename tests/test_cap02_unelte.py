"""Uneltele capitolului 02 (`curs_compilare.capitole.cap02_dynamo`): ce tipăresc, ce notează în
registrul de cifre (cheile, unitățile, intervalele și marcajele de dinainte, din celule) și ce
desenează."""


import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from curs_compilare.capitole import cap02_dynamo as unelte  # noqa: E402
from curs_compilare.inspectie import Explicatie  # noqa: E402
from curs_compilare.masurare import Masuratoare, Raport  # noqa: E402


def _m(secunde):
    return Masuratoare(secunde, 0.9 * secunde, 1.1 * secunde, 30, "u", mediane_runde=(secunde,) * 3)


def test_tabelul_intreruperilor(capsys):
    cu_print = Explicatie(2, 1, motive=["print"], detalii=["print"])
    unelte.tabel_intreruperi({"print": cu_print, "fără probleme": Explicatie(1, 0)})
    antet, rand_print, rand_fara = capsys.readouterr().out.splitlines()
    assert antet.split() == ["cauza", "grafuri", "întreruperi", "motivul"]
    assert rand_print.startswith("print ") and rand_print.split()[1:3] == ["2", "1"]
    assert rand_fara.split()[-3:] == ["1", "0", "—"]
    assert (antet[51:], rand_print[51:], rand_fara[51:]) == ("   motivul", "   " + cu_print.categorii[0], "   —")  # coloane aliniate


def test_eticheta_lanturilor():
    assert [unelte.cu_intreruperi(n) for n in (0, 1, 3, 15, 20)] == [
        "0 întreruperi", "1 întrerupere", "3 întreruperi", "15 întreruperi", "20 de întreruperi"]


def test_graficul_intreruperilor():
    numere, grafuri = [0, 1, 3], [1, 2, 4]
    marimi = {"tensor mic": 256, "tensor mare": 2**14}
    timpi_eager = {nume: _m(1e-4) for nume in marimi}
    timpi_lant = {nume: [_m(5e-5), _m(8e-5), _m(1.4e-4)] for nume in marimi}
    fig = unelte.grafic_intreruperi(numere, grafuri, marimi, timpi_eager, timpi_lant, 16)
    principale = [ax for ax in fig.axes if ax.get_xlabel() == "întreruperi ale grafului"]
    assert [ax.get_title() for ax in principale] == ["tensor mic: 1 KiB", "tensor mare: 64 KiB"]
    assert fig._suptitle.get_text() == "Același lanț de 16 pași, cu tot mai multe întreruperi"
    sus = [copil for ax in principale for copil in ax.child_axes]  # axa de sus, cu numărul de grafuri
    assert [ax.get_xlabel() for ax in sus] == ["grafuri compilate"] * 2
    assert [t.get_text() for t in sus[0].get_xticklabels()] == ["1", "2", "4"]
    plt.close("all")


def test_costul_intreruperilor(cifre_notate, capsys):
    raport = Raport(1.2, 1.1, 1.3, 5)
    unelte.raporteaza_costul_intreruperilor(12.0, [10.0, 12.0, 15.0], raport, 15, are_gpu=True)
    text = capsys.readouterr().out
    assert "fiecare întrerupere a adăugat în medie 12 µs (între 10 µs și 15 µs" in text
    assert text.count("\n") == 2 and "Tensor mare: " in text and "15 întreruperi" in text
    mic, mare = cifre_notate()
    assert (mic["cheie"], mic["valoare"], mic["unitate"]) == ("02.cost_intrerupere_tensor_mic_us", 12.0, "µs")
    assert mic["interval"] == [10.0, 15.0] and mic["depinde_de_procesor"] is True
    assert (mare["cheie"], mare["valoare"], mare["unitate"]) == ("02.raport_intreruperi_tensor_mare", 1.2, "×")
    assert mare["descriere"] == "lanțul fără întreruperi față de lanțul cu 15 întreruperi, tensor mare"


def test_costul_din_zgomot_si_referinta_pe_procesor(capsys, monkeypatch):
    monkeypatch.setattr(unelte.cifre, "afiseaza_referinta", lambda prefix: print(f"[referința {prefix}]"))
    unelte.raporteaza_costul_intreruperilor(1.0, [-2.0, 1.0, 3.0], Raport(1.0, 0.9, 1.1, 5), 3, are_gpu=False)
    text = capsys.readouterr().out
    assert "nu se desprinde de zgomot" in text and "a adăugat" not in text
    assert text.rstrip().endswith("[referința 02.]")


def test_graficul_secventei_de_loturi():
    timpi = {"dynamic=False": [2.0, 1.5, 1e-4, 1e-4], "dynamic=True": [2.5, 1e-4, 1e-4, 1e-4]}
    ax = unelte.grafic_compilari_pe_secventa(timpi, {"dynamic=False": 2, "dynamic=True": 1}, [8, 16, 8, 16])
    etichete = [t.get_text() for t in ax.get_legend().get_texts()]
    assert etichete[0].startswith("dynamic=False: 2 compilări, total ") and etichete[1].startswith("dynamic=True: 1 compilare")
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["1\nlot 8", "2\nlot 16"]
    assert list(ax.lines[0].get_ydata())[:2] == pytest.approx([2000.0, 1500.0]) and ax.get_yscale() == "log"
    plt.close("all")


def test_secventa_se_noteaza_pe_strategii(cifre_notate):
    unelte.inregistreaza_secventa({"dynamic=False": [1.0, 2.0], "implicit": [0.5], "dynamic=True": [0.25]}, [8, 16])
    cifre_notate = cifre_notate()
    assert [c["cheie"] for c in cifre_notate] == ["02.secventa_dynamic_False_s", "02.secventa_implicit_s", "02.secventa_dynamic_True_s"]
    assert [c["valoare"] for c in cifre_notate] == [3.0, 0.5, 0.25]
    assert all(c["unitate"] == "s" and c["depinde_de_procesor"] for c in cifre_notate)
    assert cifre_notate[0]["descriere"] == "secvența de 2 loturi, dynamic=False: timpul total (cu compilările, cache gol)"
