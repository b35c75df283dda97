"""Uneltele capitolului 00 (`curs_compilare.capitole.cap00_masurare`): ce tipăresc, ce notează
în registrul de cifre (cheile, unitățile, valorile și marcajele de dinainte, din celule) și ce
desenează."""


import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from curs_compilare import cifre  # noqa: E402
from curs_compilare.capitole import cap00_masurare as unelte  # noqa: E402
from curs_compilare.masurare import Comparatie, Masuratoare, PlafonCopiere, Raport  # noqa: E402


def _m(secunde, runde=(1.0, 1.0, 1.0), ceas="perete"):
    return Masuratoare(secunde, 0.9 * secunde, 1.1 * secunde, 30, "u",
                       mediane_runde=tuple(r * secunde for r in runde), ceas=ceas)


def _plafon(gbps=20.0, octeti=2**28):
    return PlafonCopiere(gbps=gbps, octeti_copiati=octeti, masuratoare=_m(0.01), dispozitiv="cpu")


def test_cronometrul_real_tipareste_si_noteaza_in_microsecunde(cifre_notate, capsys):
    unelte.raporteaza_cronometrul_real(1024, 0.00002, 0.0002)
    text = capsys.readouterr().out
    assert "GPU real, a @ a (1 024 × 1 024): fără sincronizare 20 µs, cu sincronizare 200 µs" in text
    assert "de 10× mai mic decât cel real" in text and cifre.probleme_de_format(text) == []
    naiv, corect = cifre_notate()
    assert (naiv["cheie"], naiv["unitate"], naiv["depinde_de_procesor"]) == ("00.cronometru_naiv_us", "µs", True)
    assert (corect["cheie"], corect["unitate"], corect["depinde_de_procesor"]) == ("00.cronometru_corect_us", "µs", False)
    assert naiv["valoare"] == pytest.approx(20.0) and corect["valoare"] == pytest.approx(200.0)
    assert naiv["descriere"] == "a @ a (1 024 × 1 024) cronometrat fără sincronizare"
    assert corect["descriere"] == "a @ a (1 024 × 1 024) cronometrat cu sincronizare"


def test_graficul_apel_cu_apel_are_media_si_mediana():
    ax = unelte.grafic_apel_cu_apel([5.0, 1.0, 1.0, 1.2], medie=2.05, mediana=1.0, titlu="t")
    assert len(ax.lines) == 3 and list(ax.lines[0].get_ydata()) == [5.0, 1.0, 1.0, 1.2]
    etichete = [t.get_text() for t in ax.get_legend().get_texts()]
    assert etichete == ["media: 2,05 ms", "mediana: 1 ms"]
    assert ax.get_title() == "t" and ax.get_xlabel() == "al câtelea apel"
    plt.close("all")


def test_cifrele_lui_gelu(cifre_notate):
    comparatie = Comparatie({"eager": _m(0.004, (1.0, 1.1, 0.9)), "compilat": _m(0.001)}, ceas="perete")
    unelte.inregistreaza_gelu(comparatie, 2.5)
    prima, eager, compilat, accelerare = cifre_notate()
    assert [c["cheie"] for c in (prima, eager, compilat, accelerare)] == [
        "00.prima_apelare_s", "00.gelu_eager_ms", "00.gelu_compilat_ms", "00.gelu_accelerare"]
    assert [c["unitate"] for c in (prima, eager, compilat, accelerare)] == ["s", "ms", "ms", "×"]
    assert prima["valoare"] == 2.5 and prima["depinde_de_procesor"] is True
    assert eager["valoare"] == pytest.approx(4.0) and compilat["valoare"] == pytest.approx(1.0)
    assert accelerare["valoare"] == pytest.approx(4.0) and accelerare["interval"] == pytest.approx([3.6, 4.4])
    assert prima["descriere"] == "gelu_manual: primul apel compilat (compilare + rulare, cache gol)"


@pytest.mark.parametrize("prag, raport, asteptat, notat", [
    (None, (0.8, 0.75, 0.85), "nu se amortizează", False),
    (33, (8.0, 7.5, 8.5), "Compilarea s-a amortizat la apelul 33.", True),
    (64993, (1.01, 0.9, 1.2), "nu e sigur", False),
])
def test_rentabilitatea_noteaza_doar_un_prag_sigur(cifre_notate, capsys, prag, raport, asteptat, notat):
    unelte.raporteaza_rentabilitatea(prag, Raport(*raport, runde=5))
    assert asteptat in capsys.readouterr().out
    cifre_notate = cifre_notate()
    assert bool(cifre_notate) == notat
    if notat:
        (c,) = cifre_notate
        assert (c["cheie"], c["valoare"], c["unitate"], c["depinde_de_procesor"]) == ("00.prag_rentabilitate", 33.0, "apeluri", True)


def test_plafonul_si_clone(cifre_notate, capsys):
    unelte.inregistreaza_plafonul(_plafon(gbps=3000.0))
    unelte.raporteaza_clone(_plafon(gbps=3000.0), 2500.0)
    text = capsys.readouterr().out
    assert "x.clone() cu triton.testing.do_bench: 2 500 GB/s" in text and "1,2" in text
    plafon, clone = cifre_notate()
    assert (plafon["cheie"], plafon["valoare"], plafon["unitate"]) == ("00.plafon_copiere_gbps", 3000.0, "GB/s")
    assert (clone["cheie"], clone["valoare"], clone["unitate"]) == ("00.clone_do_bench_gbps", 2500.0, "GB/s")


def test_curba_copierii_se_explica_doar_cand_e_cazul(capsys):
    dimensiuni = [2**12, 2**20, 2**28]
    unelte.explica_curba_copierii(dimensiuni, [1.0, 10.0, 20.0], ["perete"] * 3, _plafon(gbps=20.0), are_gpu=False)
    assert capsys.readouterr().out == ""  # nicio copiere peste plafon; pe procesor, ceasul nu se spune
    unelte.explica_curba_copierii(dimensiuni, [1.0, 30.0, 20.0], ["perete"] * 3, _plafon(gbps=20.0), are_gpu=False)
    text = capsys.readouterr().out
    assert "trece peste plafon la 1 MiB" in text and "cache-urile procesorului" in text and "perete" not in text
    unelte.explica_curba_copierii(dimensiuni, [1.0, 10.0, 20.0], ["perete", "gpu", "gpu"], _plafon(gbps=20.0), are_gpu=True)
    text = capsys.readouterr().out
    assert text.startswith("Măsurate cu ceasul de perete") and text.rstrip().endswith(": 4 KiB")


def test_punctul_din_explorator_sta_pe_curba_copierii():
    ax = unelte.grafic_punct_pe_curba([2**12, 2**20], [1.0, 10.0], 20.0, 2**20, 5.0, 0.002, "gelu eager")
    stea = [l for l in ax.lines if l.get_label() == "gelu eager"]
    assert len(stea) == 1 and list(stea[0].get_ydata()) == [5.0]
    assert ax.get_title() == "gelu eager, 1 MiB: 2 ms, 5 GB/s"
    plt.close("all")
