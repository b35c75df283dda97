"""Capitolul 10: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și
verificare, numerele tipărite prin `curs_compilare.cifre`, terminologia ghidului și faptele din text
verificate pe versiunea instalată (avertismentul căii necompilate, blocurile de 128, pasul înapoi
care lipsește pe procesor)."""

import re
import warnings

import nbformat
import pytest
import torch

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod
from text_notebook import surse

CAPITOL = RADACINA / "notebooks" / "10_flex_attention.ipynb"
SOLUTIE = RADACINA / "solutions" / "10_flex_attention_solutii.ipynb"

flex = pytest.importorskip("torch.nn.attention.flex_attention")


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 10 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "10_flex_attention.ipynb"):
        assert fragment in celule[0].source
    text = markdown(CAPITOL)
    for titlu in ("## 1. Atenția naivă", "## 2. SDPA", "## 3. FlexAttention", "## 4. FlexAttention compilată",
                  "## 5. Ce recompilează", "## 6. În kernel", "## 7. În modelul cursului", "## 8. Ce nu face",
                  "## Exercițiul 1", "## Exercițiul 2", "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu
    # fiecare dintre secțiunile 3–5 (fosta secțiune 3, prea lungă) se încheie cu ce ai văzut în ea
    for numar in (3, 4, 5):
        assert f"**Ce ai văzut în secțiunea {numar}.**" in text, numar


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap10 as verificari" in cod
    for numar, semnatura in ((1, "def fereastra_cu_prefix(fereastra, prefix):"), (2, "def softcap(limita):"),
                             (3, "def masca_documente(lungimi, dispozitiv):")):
        assert semnatura in cod and f"verificari.exercitiul_{numar}(" in cod
    assert cod.count("raise NotImplementedError") == 3
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii and solutii.count("assert rezultat, rezultat.mesaj") >= 3


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
    for termen in ("mască pe blocuri", "raritate", "*sparsity*", "scor", "fuziunea", "cămară"):
        assert termen in text.lower() or termen in text, termen


def test_celulele_flexattention_folosesc_dispozitivul_ales():
    """Pe un GPU vechi pe care FlexAttention n-a mers, experimentele trec pe procesor: nicio celulă
    nu cheamă FlexAttention pe `DISPOZITIV` (GPU-ul), doar pe `FLEX.dispozitiv`."""
    for sursa in surse(CAPITOL, "code"):
        if "create_block_mask(" in sursa and "device=" in sursa:
            for potrivire in re.finditer(r"device=([\w.\"]+)", sursa):
                assert potrivire.group(1) in ("FLEX.dispozitiv", '"cpu"'), (potrivire.group(0), sursa[:80])
        assert "flex_attention(q, k, v" not in sursa or "DISPOZITIV)" not in sursa


def test_faptele_din_text_pe_versiunea_instalata():
    """Ce spune textul, verificat pe torch-ul instalat: apelul necompilat avertizează că materializează
    scorurile, blocurile sunt de 128, iar pe procesor pasul înapoi nu există."""
    q, k, v = (torch.randn(1, 1, 128, 16) for _ in range(3))
    masca = flex.create_block_mask(lambda b, h, qi, kv: qi >= kv, None, None, 128, 128, device="cpu")
    assert masca.BLOCK_SIZE == (128, 128)
    flex._WARNINGS_SHOWN.discard("flex_attention_performance")  # avertismentul apare o dată pe proces
    with warnings.catch_warnings(record=True) as avertismente:
        warnings.simplefilter("always")
        flex.flex_attention(q, k, v, block_mask=masca)
    assert any("without torch.compile" in str(a.message) and "materializes" in str(a.message) for a in avertismente)
    text = markdown(CAPITOL)
    assert "blocuri de 128" in text and "doar pasul înainte" in text
    if not torch.cuda.is_available():
        q.requires_grad_()
        with pytest.raises(NotImplementedError):
            torch.compile(flex.flex_attention)(q, k, v, block_mask=masca).sum().backward()
