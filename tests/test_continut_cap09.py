"""Capitolul 09: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și
verificare, numerele tipărite prin `curs_compilare.cifre`, terminologia ghidului și faptele din text
verificate pe versiunea instalată (ce refuză exportul, ce primește pachetul)."""

import re

import nbformat
import torch

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod
from text_notebook import surse

CAPITOL = RADACINA / "notebooks" / "09_export_aotinductor.ipynb"
SOLUTIE = RADACINA / "solutions" / "09_export_aotinductor_solutii.ipynb"


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 09 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "09_export_aotinductor.ipynb"):
        assert fragment in celule[0].source
    text = markdown(CAPITOL)
    for titlu in ("## 1. Programul exportat", "## 2. Ce refuză exportul", "## 3. Formele", "## 4. AOTInductor",
                  "## 5. Pornirea la rece", "## 6. Regimul staționar", "## 7. Din C++", "## 8. ", "## 9. ",
                  "## Exercițiul 1", "## Exercițiul 2", "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap09 as verificari" in cod
    for numar, semnatura in ((1, "def rescrie(model):"), (2, "def forme_dinamice(lungime_maxima):"),
                             (3, "def impacheteaza(model, exemplu, dosar):")):
        assert semnatura in cod and f"verificari.exercitiul_{numar}(" in cod
    assert cod.count("raise NotImplementedError") == 3
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii
    # ex3: pe o mașină unde orice pachet oprește procesul la încărcare, verificarea e „neverificat”, nu greșit
    assert (solutii.count("assert rezultat, rezultat.mesaj")
            + solutii.count("assert rezultat or rezultat.neverificat, rezultat.mesaj")) == 3


def test_numerele_tiparite_trec_prin_cifre():
    for cale in (CAPITOL, SOLUTIE):
        cod = _cod(cale)
        assert not FORMAT_INTERZIS.findall(cod), FORMAT_INTERZIS.findall(cod)
        assert "plt.show()" not in cod


def test_terminologia_si_vocea():
    for cale in (CAPITOL, SOLUTIE):
        text = markdown(cale) + "\n" + "\n".join(siruri_din_cod(cale))
        assert not NOI.findall(text) and not APELARE.findall(text)
        assert not re.search("[\u015f\u015e\u0163\u0162]", text)
        assert not re.search(r"\bvs\.?\b|\bscris de noi\b", text)
    text = markdown(CAPITOL)
    for termen in ("programul exportat", "compilăm" if False else "în avans", "pachet", "înghețarea", "*ahead-of-time*"):
        assert termen in text, termen


def test_pachetul_e_incercat_pe_forme_gresite_doar_in_procese_noi():
    """O formă din afara contractului poate opri procesul care cheamă pachetul: capitolul n-o
    încearcă niciodată în kernel-ul notebook-ului, ci doar prin `arata_contractul` (procese noi)."""
    for sursa in surse(CAPITOL, "code"):
        if "incarcat(" in sursa:
            assert "(n, CONFIGURATIE.lungime)" in sursa and "65" not in sursa
    assert any("export09.arata_contractul(" in s for s in surse(CAPITOL, "code"))


def test_faptele_din_text_pe_versiunea_instalata():
    """Ce spune textul despre export, verificat pe torch-ul instalat: `strict=False` e implicit,
    `Dim.AUTO` nu-i dă lungimii un maxim (indicii pozițiilor sunt valori, nu forme)."""
    import inspect

    from curs_compilare.capitole import cap09_export as export09
    from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer

    assert inspect.signature(torch.export.export).parameters["strict"].default is False
    configuratie = ConfiguratieTransformer(vocabular=32, dim_model=8, nr_capete=2, nr_straturi=1, lungime=8, marime_lot=4)
    x = torch.randint(0, 32, (4, 8))
    automat = torch.export.export(ReteaTransformer(configuratie).eval(), (x,),
                                  dynamic_shapes=({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},))
    assert export09.maximul_dimensiunii(automat, 1) is None
    text = markdown(CAPITOL)
    assert "`strict=False`, implicit" in text and "maximul e ∞" in text
