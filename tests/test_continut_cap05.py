"""Capitolul 05: afirmațiile corectate după recenzie nu trebuie să revină (pe ce date se
cronometrează reglarea automată, ce urmează după capitol), faptele din sursa Inductor pe care se
sprijină textul sunt verificate pe versiunea instalată, iar numerele tipărite trec prin
`curs_compilare.cifre`."""

import re

import pytest

from curs_compilare.capitole import cap05_reglare as reglare
from text_notebook import RADACINA, markdown, siruri_din_cod
from text_notebook import surse as _celule

CAPITOL = RADACINA / "notebooks" / "05_reglare_automata_max_autotune.ipynb"
SOLUTIE = RADACINA / "solutions" / "05_reglare_automata_max_autotune_solutii.ipynb"


def _markdown(cale=CAPITOL):
    return markdown(cale)


def _texte_din_cod(cale=CAPITOL) -> list[str]:
    return siruri_din_cod(cale)


# --- pe ce date se cronometrează reglarea ------------------------------------------------------


def test_reglarea_gemm_pe_date_aleatoare_restul_pe_argumentele_reale():
    text = _markdown()
    assert "Reglarea lui Inductor își cronometrează kernel-urile pe date aleatoare" not in text
    assert "tensori aleatori" in text and "argumentele reale" in text
    assert "clonează" in text and "modifică pe loc" in text
    assert "surse_reglare_inductor()" in "\n".join(_celule(CAPITOL, "code"))


def test_sursa_inductor_instalata_confirma_textul():
    """Faptele din secțiunea 1, în versiunea de PyTorch instalată: intrările șabloanelor GEMM
    vin din rand_strided, kernel-urile punctuale și de reducere se reglează în `run`, pe
    argumentele apelului, iar tensorii modificați pe loc sunt clonați înaintea încercărilor."""
    pytest.importorskip("triton")
    surse = reglare.surse_reglare_inductor()
    assert len(surse) == 3
    for ce, functie, rand in surse:
        assert rand is not None, f"nu am găsit în sursa Inductor dovada pentru „{ce}” ({functie})"
    assert "rand_strided(" in surse[0][2]
    assert "autotune_to_one_config(*args" in surse[1][2]
    assert "clone_preserve_strides(" in surse[2][2]


# --- ce urmează --------------------------------------------------------------------------------


def test_ce_urmeaza_nu_anunta_un_capitol_inexistent():
    recapitulare = _markdown().split("## Ce ai învățat", 1)[1]
    ce_urmeaza = recapitulare.split("**Ce urmează.**", 1)[1]
    assert "pe un model întreg și să măsori, pas cu pas" not in ce_urmeaza
    assert not re.search(r"capitolul 0[6-9]", ce_urmeaza)
    assert "capitol de sinteză" in ce_urmeaza
    assert "docs.pytorch.org" in ce_urmeaza
    for legatura in re.findall(r"\]\(([\w.-]+\.ipynb)\)", ce_urmeaza):
        assert (CAPITOL.parent / legatura).is_file(), f"legătură moartă: {legatura}"


# --- numere, terminologie, grafice -------------------------------------------------------------


@pytest.mark.parametrize("cale", [CAPITOL, SOLUTIE], ids=lambda c: c.name)
def test_numerele_tiparite_trec_prin_cifre(cale):
    cod = "\n".join(_celule(cale, "code"))
    for format_interzis in (r":[<>^]?\d*\.\d+f\}", r":\d*\.?\d*%\}", r":\d*\.?\d*g\}", r":,\}"):
        assert not re.search(format_interzis, cod), f"număr formatat de mână ({format_interzis}): folosește curs_compilare.cifre"
    assert "SCARA" not in cod, "unitatea debitului se alege cu unitate_debit_calcul, nu cu o scară fixă"


@pytest.mark.parametrize("cale", [CAPITOL, SOLUTIE], ids=lambda c: c.name)
def test_terminologia_ghidului(cale):
    text = _markdown(cale) + "\n" + "\n".join(_texte_din_cod(cale))
    for gresit, corect in (
        (r"\bapelar(?:e|ea|ii)\b|\bapelări", "apel / apeluri / primul apel"),
        (r"[îÎ]nmulțir", "produs de matrice"),
        (r"\b\d+ SM\b", "„40 de SM” (cu cifre.cu_substantiv)"),
        (r"\bvs\.?\b", "față de"),
    ):
        gasite = re.findall(rf".{{0,30}}(?:{gresit}).{{0,20}}", text)
        assert not gasite, f"scrie „{corect}”: {gasite}"


def test_graficul_cacheului_centreaza_o_singura_serie():
    # graficul proceselor stă acum în unealta cache-ului (`grafic_procese`): îl cauți acolo
    cod = next(s for s in _celule(CAPITOL, "code") if "primul_apel_in_proces_nou(" in s)
    assert "grafic_procese(" in "\n".join(_celule(CAPITOL, "code"))
    cod += "\n" + (RADACINA / "curs_compilare" / "capitole" / "cap05_cache.py").read_text(encoding="utf-8")
    assert "p - 0.2" not in cod, "barele unei singure serii ar sta decalate față de etichete"
    assert "(len(serii) - 1) / 2" in cod


def test_unitatea_debitului_nu_rotunjeste_la_zero():
    assert reglare.unitate_debit_calcul([6.2e14, 3.4e13]) == ("TFLOP/s", 1e12)
    unitate, factor = reglare.unitate_debit_calcul([8.4e7, 3.3e6])
    assert unitate == "MFLOP/s" and 3.3e6 / factor >= 1
    assert reglare.unitate_debit_calcul([]) == ("FLOP/s", 1.0)


def test_procentul_din_plafon_nu_se_rotunjeste_la_zero():
    import matplotlib

    matplotlib.use("Agg")
    from curs_compilare import grafice

    ax = grafice.grafic_latime_banda({"eager": 265.0, "default": 461.0}, 94_900.0, unitate="MFLOP/s",
                                     marime="debit de calcul", eticheta_plafon="vârful")
    texte = [t.get_text() for t in ax.texts]
    assert not any("(0% din plafon)" in t for t in texte), texte
    assert any("0,28% din plafon" in t for t in texte), texte


# --- amortizarea: un singur model (curs_compilare.amortizare) ------------------------------------


def _celula_cu(cale, tip, fragment):
    return next(s for s in _celule(cale, tip) if fragment in s)


def test_sectiunea_3_si_exercitiul_2_folosesc_modelul_unic():
    text = _markdown()
    assert "primul apel + (n − 1) · timpul pe apel" in text
    grafic = _celula_cu(CAPITOL, "code", "apeluri = [10**p")
    assert "cost_total(" in grafic and "(k - 1)" not in grafic
    enunt = _celula_cu(CAPITOL, "markdown", "## Exercițiul 2")
    assert "prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s" in enunt
    assert "compilare_default_s" not in enunt and "compilare + n · pas" not in enunt
    assert "prima + (n − 1) · pas" in enunt and "rămâne așa" in enunt
    # indiciul vechi era greșit când max-autotune e mai ieftin la primul apel, dar mai lent pe pas
    assert "nu compilează mai mult decât modul implicit, se amortizează de la primul pas" not in enunt
    assert "chiar dacă primul lui apel e mai ieftin" in enunt
    stub = _celula_cu(CAPITOL, "code", "def pasi_de_rentabilitate(")
    assert "def pasi_de_rentabilitate(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):" in stub
    pe_masuratori = _celula_cu(CAPITOL, "code", "prima_autotune_s = secunde_compilare")
    assert "verificari.exercitiul_2(pasi_de_rentabilitate)" in pe_masuratori


def test_solutia_exercitiului_2_e_modelul_unic():
    """Funcția din soluție dă, pe cazuri aleatoare și pe cele limită, exact apel_de_amortizare."""
    import math
    import random

    from curs_compilare.amortizare import apel_de_amortizare

    cod = _celula_cu(SOLUTIE, "code", "def pasi_de_rentabilitate(")
    spatiu = {"math": math}
    exec(cod.split("\n\nrezultat =")[0], spatiu)
    functie = spatiu["pasi_de_rentabilitate"]
    g = random.Random(3)
    cazuri = [(5.0, 0.002, 30.0, 0.003), (5.0, 0.002, 1.0, 0.003), (5.0, 0.002, 5.0, 0.002), (5.0, 0.002, 9.0, 0.002),
              (3.0, 0.5, 3.0 + 0.25 * 40, 0.25)]
    cazuri += [(g.uniform(1, 50), g.uniform(1e-3, 5e-3), g.uniform(1, 90), g.uniform(1e-3, 5e-3)) for _ in range(200)]
    for argumente in cazuri:
        assert functie(*argumente) == apel_de_amortizare(*argumente), argumente
