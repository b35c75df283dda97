"""Testele graficelor și ale cifrelor-cheie."""

import json

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
    assert any("apelarea 4" in t.get_text() for t in ax.texts)
    plt.close("all")


def test_format_octeti():
    assert grafice.format_octeti(2**30) == "1 GiB"
    assert grafice.format_octeti(512) == "512 B"


def test_inregistreaza_scrie_in_fisierul_validarii(tmp_path, monkeypatch):
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    assert cifre.inregistreaza("00.x", 4.5, "GB/s", "descriere") == 4.5
    assert json.loads(fisier.read_text())["cheie"] == "00.x"


def test_inregistreaza_fara_validare_doar_intoarce(monkeypatch):
    monkeypatch.delenv(cifre.VARIABILA_FISIER, raising=False)
    assert cifre.inregistreaza("00.x", 1, "s", "d") == 1


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
