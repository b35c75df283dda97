"""Capitolul 11: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și verificare, numerele
tipărite prin `curs_compilare.cifre`, terminologia ghidului și faptele din text verificate pe versiunea instalată
(rescrierea produsului cu un rând doar cu `coordinate_descent_tuning` și doar în afara procesorului, conversia
int8 → float32 calculată dinainte la înghețare, tiparul int8 al procesorului care cere bfloat16, limita de 8
recompilări, tampoanele modulelor cu adrese statice pentru grafurile CUDA)."""

import inspect
import re

import nbformat
import torch

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod

CAPITOL = RADACINA / "notebooks" / "11_generarea_textului.ipynb"
SOLUTIE = RADACINA / "solutions" / "11_generarea_textului_solutii.ipynb"


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 11 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "11_generarea_textului.ipynb"):
        assert fragment in celule[0].source
    text = markdown(CAPITOL)
    for titlu in ("## 1. Un decodor pe modelul cursului", "## 2. De ce cache-ul care crește", "## 3. Cache-ul KV static",
                  "## 4. Plafonul", "## 5. Greutăți int8", "## 6. Ce arată doar un GPU", "## Exercițiul 1", "## Exercițiul 2",
                  "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu
    # fiecare experiment e urmat de ce citești în el
    assert text.count("**Ce citești.**") >= 6
    assert "**Prezice, apoi uită-te.**" in text


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap11 as verificari" in cod
    for numar, semnatura in ((1, "def actualizeaza_cache(cache_k, cache_v, k, v, pozitii):"),
                             (2, "class LiniarInt8(torch.nn.Module):"),
                             (3, "def plafon_jetoane_pe_secunda(octeti_greutati, octeti_kv_pe_pozitie, pozitie, lot, gbps):")):
        assert semnatura in cod and f"verificari.exercitiul_{numar}(" in cod
    assert cod.count("raise NotImplementedError") == 4  # două în clasa exercițiului 2
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii and solutii.count("assert rezultat, rezultat.mesaj") >= 5


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
        assert not re.search(r"\bvs\.?\b|\bscris de noi\b|\btokeni?\b", text)
    text = markdown(CAPITOL)
    for termen in ("cache-ul KV", "cache-ul KV static", "umplerea", "*prefill*", "decodarea", "*decode*", "plafonul lățimii de bandă",
                   "lățimea de bandă", "*weight-only quantization*", "cuantizarea doar a greutăților", "limitat de memorie",
                   "cămară", "reluat", "fullgraph=True", 'mode="reduce-overhead"', "coordinate_descent_tuning",
                   "înghețarea", "divergența Kullback–Leibler", "lacom", "rafinarea pe coordonate"):
        assert termen.lower() in text.lower(), termen


def test_textul_nu_promite_cifre_din_afara():
    """Cifrele din text vin din celule: proza nu citează jetoane pe secundă, procente sau accelerări măsurate
    altundeva (blogul, sonda de pe H100). Rămân doar ținta de 80%, pragul predicțiilor (10%) și reperul de 100%."""
    text = markdown(CAPITOL)
    assert not re.search(r"\d+ (?:de )?jetoane/s|\d+([.,]\d+)?×|\d+ ?%", text.replace("80%", "").replace("10%", "").replace("100%", "")), \
        re.findall(r"\d+ (?:de )?jetoane/s|\d+([.,]\d+)?×|\d+ ?%", text)


def test_faptele_din_text_pe_versiunea_instalata():
    """Ce spune textul despre Inductor, verificat în sursele torch-ului instalat."""
    from torch._inductor import constant_folding, decomposition
    from torch._inductor.fx_passes import quantization

    # produsul cu un singur rând devine înmulțire și sumă doar cu coordinate_descent_tuning, și nu pe procesor
    sursa_mm = inspect.getsource(decomposition.mm)
    assert "coordinate_descent_tuning" in sursa_mm and '"cpu"' in sursa_mm
    # la înghețare, doar conversia int8 → bfloat16 e ferită de calculul dinainte
    sursa_pliere = inspect.getsource(constant_folding)
    assert "is_woq_int8_pattern" in sursa_pliere and "torch.bfloat16" in sursa_pliere
    # tiparul int8 al procesorului (_weight_int8pack_mm) cere activări și scale în bfloat16
    sursa_tipar = inspect.getsource(quantization._is_valid_woq_optimization_pattern)
    assert "torch.bfloat16" in sursa_tipar and "torch.int8" in sursa_tipar
    assert "_weight_int8pack_mm" in inspect.getsource(quantization._register_woq_mm_int8_pattern1)
    # limita implicită de recompilări
    nume = "recompile_limit" if hasattr(torch._dynamo.config, "recompile_limit") else "cache_size_limit"
    assert getattr(torch._dynamo.config, nume) == 8
    # tampoanele modulelor sunt intrări cu adrese statice (grafurile CUDA le pot modifica pe loc)
    from torch._dynamo.variables import builder

    assert "mark_static_input" in inspect.getsource(builder.VariableBuilder)
    text = markdown(CAPITOL)
    assert "limita de recompilări (8 grafuri" in text and "_weight_int8pack_mm" in text
