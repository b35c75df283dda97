"""Testele graficelor și ale cifrelor-cheie."""

import json

import pytest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from curs_compilare import cifre, grafice  # noqa: E402
from curs_compilare.masurare import Masuratoare  # noqa: E402


def _m(s):
    return Masuratoare(s, s * 0.9, s * 1.1, 10, "test")


def test_grafic_variante_scrie_factorul_fata_de_prima():
    ax = grafice.grafic_variante({"eager": _m(0.004), "compilat": _m(0.001)}, titlu="t")
    texte = [t.get_text() for t in ax.texts]
    assert any("4,00×" in t for t in texte), texte
    plt.close("all")


def test_grafic_dimensiuni_deseneaza_plafonul():
    ax = grafice.grafic_dimensiuni([2**12, 2**14], {"a": [1.0, 2.0]}, plafon=3.0)
    assert len(ax.lines) == 2
    assert ax.get_xticklabels()[0].get_text() == "4 KiB"
    plt.close("all")


def test_grafic_rentabilitate_intoarce_pragul():
    ax, prag = grafice.grafic_rentabilitate(9.0, 3.0, 1.0)
    assert prag == 4
    assert any("apelul 4" in t.get_text() for t in ax.texts)
    plt.close("all")


def test_format_octeti():
    assert grafice.format_octeti(2**30) == "1 GiB"
    assert grafice.format_octeti(512) == "512 B"


def test_inregistreaza_scrie_in_fisierul_validarii(tmp_path, monkeypatch):
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    assert cifre.inregistreaza("00.x", 4.5, "GB/s", "descriere") is None  # nimic de afișat ca Out[]
    inregistrare = json.loads(fisier.read_text())
    assert inregistrare["cheie"] == "00.x" and inregistrare["valoare"] == 4.5
    assert inregistrare["interval"] is None and inregistrare["depinde_de_procesor"] is False


def test_inregistreaza_ia_intervalul_din_raport_si_din_masuratoare(tmp_path, monkeypatch):
    from curs_compilare.masurare import Masuratoare, Raport

    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    cifre.inregistreaza("01.a", Raport(1.5, 1.4, 1.6, 5, depinde_de_procesor=True), "×", "accelerare")
    m = Masuratoare(0.002, 0.0019, 0.0022, 50, "u", mediane_runde=(0.0019, 0.002, 0.0021), ceas="gpu")
    cifre.inregistreaza("01.b", m, "ms", "timp")
    a, b = (json.loads(r) for r in fisier.read_text().splitlines())
    assert a["valoare"] == 1.5 and a["interval"] == [1.4, 1.6] and a["depinde_de_procesor"] is True
    assert b["valoare"] == pytest.approx(2.0) and b["interval"] == pytest.approx([1.9, 2.1])
    assert b["depinde_de_procesor"] is False
    assert cifre.descrie_cifra(a) == "1,5× (pe runde, între 1,4× și 1,6×; depinde și de procesor)"
    assert cifre.descrie_cifra(b) == "2 ms (pe runde, între 1,9 ms și 2,1 ms)"


def test_inregistreaza_fara_validare_nu_scrie_nimic(monkeypatch, tmp_path):
    monkeypatch.delenv(cifre.VARIABILA_FISIER, raising=False)
    monkeypatch.chdir(tmp_path)
    assert cifre.inregistreaza("00.x", 1, "s", "d") is None
    assert list(tmp_path.iterdir()) == []


def test_referinta_se_gaseste_si_se_afiseaza(capsys):
    date = cifre.referinta()
    assert date["mediu"]["gpu"].startswith("NVIDIA")
    afisate = cifre.afiseaza_referinta("00.")
    assert afisate and "NU pe mașina ta" in capsys.readouterr().out


def test_format_numar():
    assert cifre.format_numar(4239.4) == "4 239"
    assert cifre.format_numar(3.84) == "3,84"


def test_cu_substantiv_pune_de_unde_trebuie():
    assert cifre.cu_substantiv(1, "apelare", "apelări") == "1 apelare"
    assert cifre.cu_substantiv(19, "apelare", "apelări") == "19 apelări"
    assert cifre.cu_substantiv(20, "apelare", "apelări") == "20 de apelări"
    assert cifre.cu_substantiv(132, "multiprocesor", "multiprocesoare") == "132 de multiprocesoare"
    assert cifre.cu_substantiv(105, "element", "elemente") == "105 elemente"
    assert cifre.cu_substantiv(4194304, "element", "elemente") == "4 194 304 elemente"
    assert cifre.cu_substantiv(67108864, "element", "elemente") == "67 108 864 de elemente"


def test_grafic_variante_logaritmic_fara_factor():
    ax = grafice.grafic_variante({"a": 0.01, "b": 3.0}, factor_fata_de_prima=False, logaritmic=True)
    assert ax.get_xscale() == "log"
    assert not any("față de prima" in t.get_text() for t in ax.texts)
    plt.close("all")


def test_cu_unitate():
    assert cifre.cu_unitate(8.72, "×") == "8,72×"
    assert cifre.cu_unitate(4226.4, "GB/s") == "4 226 GB/s"


def test_format_numar_fara_notatie_stiintifica_si_cu_mii_grupate():
    assert cifre.format_numar(0.000123) == "0,000123"
    assert cifre.format_numar(12345.6) == "12 346"
    assert cifre.format_numar(1e9) == "1 000 000 000"
    assert cifre.format_numar(99.96) == "100"
    assert cifre.format_numar(-2.5) == "-2,5"
    assert cifre.format_numar(2.5, zecimale=2) == "2,50"
    assert cifre.format_numar(0) == "0"


def test_format_timp_trece_la_unitatea_urmatoare_dupa_rotunjire():
    assert cifre.format_timp(0.0009996) == "1 ms"
    assert cifre.format_timp(23.5e-3) == "23,5 ms"
    assert cifre.format_timp(1250) == "1 250 s"
    assert "e" not in cifre.format_timp(5e-7)


def test_procent_octeti_prefix_da_nu():
    assert cifre.format_procent(0.973) == "97%"
    assert cifre.format_procent(0.9734, 1) == "97,3%"
    assert cifre.format_octeti(868.618 * 1024) == "869 KiB"
    assert cifre.format_octeti(1.5 * 2**30) == "1,5 GiB"
    assert cifre.cu_prefix(3.2e9, "FLOP/s") == "3,2 GFLOP/s"
    assert cifre.cu_prefix(5e5, "FLOP/s") == "500 kFLOP/s"
    assert (cifre.da_nu(True), cifre.da_nu(False)) == ("da", "nu")


def test_probleme_de_format_gaseste_ce_nu_e_scris_romaneste():
    gresit = ("31.96 s; 2.63×; 868.618 KiB; 2,35e+04 µs; 12345 GB/s; memorie? True\n"
              "32 kernel-uri; 1 kernel-uri")
    probleme = cifre.probleme_de_format(gresit)
    for fragment in ["31.96 s", "2.63×", "868.618 KiB", "2,35e+04 µs", "12345 GB/s", "True",
                     "32 kernel-uri", "1 kernel-uri"]:
        assert any(fragment in p for p in probleme), fragment
    corect = ("31,96 s; 2,63×; 869 KiB; 23,5 ms; 12 345 GB/s; memorie? da\n32 de kernel-uri; 1 kernel; "
              "4 194 304 elemente; torch 2.11.0; fișierul model.py")
    assert cifre.probleme_de_format(corect) == []


def test_axele_graficelor_au_virgula_zecimala_si_mii_grupate():
    fig, (liniar, logaritmic) = plt.subplots(1, 2)
    liniar.plot([0.1, 0.5, 1.2], [1000, 25000, 3e6])
    logaritmic.plot([1, 10, 1000], [0.001, 0.1, 10])
    logaritmic.set(xscale="log", yscale="log")
    grafice.formateaza_axe(fig)
    fig.canvas.draw()
    etichete = [t.get_text() for ax in (liniar, logaritmic) for axa in (ax.xaxis, ax.yaxis)
                for t in axa.get_ticklabels()]
    assert "1 000 000" in etichete and "0,25" in etichete and "0,01" in etichete and "1 000" in etichete
    assert not any("." in e or "e" in e or "^" in e for e in etichete)
    plt.close(fig)


def test_cu_unitate_pune_de_inaintea_unitatilor_cuvinte():
    assert cifre.cu_unitate(2048, "exemple") == "2 048 de exemple"
    assert cifre.cu_unitate(16, "straturi") == "16 straturi"
    assert cifre.cu_unitate(25, "GiB") == "25 GiB"


def test_procentele_mici_nu_devin_zero():
    assert cifre.format_procent(0.000117) == "0,012%"
    assert cifre.format_procent(0.0047) == "0,47%"
    assert cifre.format_procent(0) == "0%"


def test_cu_unitate_la_singular_pentru_unu():
    assert cifre.cu_unitate(1, "kernel-uri") == "1 kernel"
    assert cifre.cu_unitate(1.0, "apeluri") == "1 apel"
    assert cifre.cu_unitate(2, "kernel-uri") == "2 kernel-uri"
    assert cifre.cu_unitate(1.5, "pași") == "1,5 pași"
    assert cifre.cu_unitate(1, "ms") == "1 ms"
    assert set(cifre.SINGULARE) <= set(cifre.SUBSTANTIVE_NUMARATE) | {"jetoane"}


def test_cifra_referinta_o_gaseste_cu_gpu_ul_ei():
    cifra = cifre.cifra_referinta("01.antrenare_accelerare")
    assert cifra["unitate"] == "×" and cifra["valoare"] > 1 and cifra["gpu"].startswith("NVIDIA")
    assert cifre.cifra_referinta("99.nu_exista") is None


def test_inregistreaza_cu_prag_absolut(tmp_path, monkeypatch):
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    cifre.inregistreaza("06.abatere", 0.3, "", "diferența pierderilor", prag_absolut=0.25)
    cifre.inregistreaza("06.fara_prag", 1.0, "s", "d")
    cu_prag, fara_prag = (json.loads(r) for r in fisier.read_text().splitlines())
    assert cu_prag["prag_absolut"] == 0.25 and "prag_absolut" not in fara_prag


def test_afiseaza_referinta_arata_sursa_cifrelor_masurate_separat(monkeypatch, capsys):
    date = {"mediu": {"gpu": "NVIDIA H200", "torch": "2.11"}, "cifre": [
        {"cheie": "06.a", "valoare": 337.0, "unitate": "s", "descriere": "primul apel, max-autotune", "interval": None,
         "depinde_de_procesor": True, "sursa": "benchmarks/capitolul06.py --max-autotune"},
        {"cheie": "06.b", "valoare": 11.8, "unitate": "ms", "descriere": "pasul, default", "interval": None,
         "depinde_de_procesor": False, "notebook": "notebooks/06_modelul_intreg.ipynb"},
    ]}
    monkeypatch.setattr(cifre, "referinta", lambda: date)
    assert set(cifre.afiseaza_referinta("06.")) == {"06.a", "06.b"}
    iesire = capsys.readouterr().out
    assert "primul apel, max-autotune: 337 s (depinde și de procesor) [măsurată separat, cu benchmarks/capitolul06.py --max-autotune]" in iesire
    assert "pasul, default: 11,8 ms\n" in iesire
    assert cifre.probleme_de_format(iesire) == []
