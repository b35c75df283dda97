"""Capitolul 12: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și verificare, numerele
tipărite prin `curs_compilare.cifre`, terminologia ghidului și faptele din text verificate pe versiunea instalată
(bugetul implicit, politica primește supraîncărcarea, `nn.Linear` cu bias devine `addmm`, avertismentul pentru
`context_fn`, `lambda` ca `context_fn` oprește compilarea, un checkpoint scos din compilare nu ajunge în graf,
API-ul instantaneului de memorie)."""

import functools
import inspect
import re

import nbformat
import pytest
import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod

CAPITOL = RADACINA / "notebooks" / "12_memoria_sub_compilare.ipynb"
SOLUTIE = RADACINA / "solutions" / "12_memoria_sub_compilare_solutii.ipynb"
MODUL = RADACINA / "curs_compilare" / "capitole" / "cap12_memorie.py"
VERIFICARI = RADACINA / "curs_compilare" / "exercitii" / "cap12.py"


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 12 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "12_memoria_sub_compilare.ipynb",
                     "**Pe ce mașină.**"):
        assert fragment in celule[0].source, fragment
    text = markdown(CAPITOL)
    for titlu in ("## 1. Activările", "## 2. Ce face compilarea", "## 3. Checkpointing-ul activărilor",
                  "## 4. Checkpointing-ul selectiv", "## 5. Bugetul de memorie", "## 6. Întrebarea practică",
                  "## Exercițiul 1", "## Exercițiul 2", "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu
    for numar in range(1, 7):
        assert f"**Ce ai văzut în secțiunea {numar}.**" in text, numar
    assert text.count("**Ce citești.**") >= 5 and "**Capcana" in text
    assert "<details><summary>Indiciu</summary>" in text
    assert "mem12.exploreaza_plafonul(" in _cod(CAPITOL)


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap12 as verificari" in cod
    for semnatura in ("def politica_matmul(ctx, op, *args, **kwargs):", "def bloc_cu_sac(bloc, x):",
                      "def alege_bugetul(masoara, plafon, bugete):", "def prezice_recalcularile(activare, cu_norma):"):
        assert semnatura in cod, semnatura
    for apel in ("verificari.exercitiul_1(politica_matmul, bloc_cu_sac)", "verificari.exercitiul_2(alege_bugetul)",
                 "verificari.exercitiul_3(prezice_recalcularile)"):
        assert apel in cod, apel
    assert cod.count("raise NotImplementedError") == 4
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii and solutii.count("assert rezultat, rezultat.mesaj") >= 3


def test_numerele_tiparite_trec_prin_cifre():
    for cale in (CAPITOL, SOLUTIE):
        cod = _cod(cale)
        assert not FORMAT_INTERZIS.findall(cod), FORMAT_INTERZIS.findall(cod)
        assert "plt.show()" not in cod
    for modul in (MODUL, VERIFICARI):
        text = modul.read_text(encoding="utf-8")
        assert not FORMAT_INTERZIS.findall(text), (modul.name, FORMAT_INTERZIS.findall(text))
        assert "plt.show()" not in text


def test_terminologia_si_vocea():
    for cale in (CAPITOL, SOLUTIE):
        text = markdown(cale) + "\n" + "\n".join(siruri_din_cod(cale))
        assert not NOI.findall(text) and not APELARE.findall(text), (NOI.findall(text), APELARE.findall(text))
        assert not re.search("[\u015f\u015e\u0163\u0162]", text)
        assert not re.search(r"\bvs\.?\b", text)
    text = markdown(CAPITOL)
    for termen in ("activări", "rematerializare", "*rematerialization*", "checkpointing-ul activărilor",
                   "*activation checkpointing*", "checkpointing-ul selectiv", "bugetul de memorie", "*memory budget*",
                   "cămar", "instantaneu al memoriei", "*memory snapshot*", "Unde se oprește analogia"):
        assert termen in text, termen
    # nicio cifră măsurată scrisă de mână în text: sonda din enunț (H100) nu apare
    for interzis in ("6 447", "4 535", "1 191", "168 → 104", "H100"):
        assert interzis not in text, interzis


def test_nicio_promisiune_de_cifre_de_referinta():
    """Referința cursului nu are încă cifrele capitolului: textul nu spune că vin „din referință”, iar
    propoziția despre ele o scrie codul (`cifre.despre_referinta`)."""
    texte = [markdown(CAPITOL), markdown(SOLUTIE), MODUL.read_text(encoding="utf-8")]
    for text in texte:
        assert not re.search(r"\b(?:în|din) referință\b", text)
    assert MODUL.read_text(encoding="utf-8").count("cifre.despre_referinta(") >= 2


def test_faptele_din_text_pe_versiunea_instalata():
    import torch._functorch.config as config_functorch
    from torch._higher_order_ops import wrap

    assert config_functorch.activation_memory_budget == 1.0
    assert torch.ops.aten.mm.default != torch.ops.aten.mm  # politica primește supraîncărcarea, nu pachetul
    assert torch.ops.aten.mm.default.overloadpacket is torch.ops.aten.mm
    assert list(CheckpointPolicy)[:4] == [CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE,
                                          CheckpointPolicy.MUST_RECOMPUTE, CheckpointPolicy.PREFER_RECOMPUTE]
    sursa = inspect.getsource(wrap)
    assert "Detected that context_fn is passed to torch.utils.checkpoint under torch.compile." in sursa
    assert "does not contain in-place ops" in sursa
    assert callable(torch.cuda.memory._record_memory_history) and callable(torch.cuda.memory._dump_snapshot)
    text = markdown(CAPITOL)
    assert "Detected that context_fn is passed to torch.utils.checkpoint under torch.compile" in text
    assert "torch._functorch.config.activation_memory_budget" in text and "(implicit 1,0)" in text


def _compileaza_cu(invelis):
    from curs_compilare.capitole import cap12_memorie as mem12

    marimi = mem12.Marimi(nr_blocuri=1, dim_model=8, nr_capete=2, lungime=4, lot=2)
    stiva = mem12.stiva_noua(marimi, dispozitiv="cpu").cu_invelis(invelis)
    x, tinta = mem12.lot_de_intrari(marimi, dispozitiv="cpu", dinamic=False)
    functie, compilator = mem12.compileaza(stiva, genereaza_cod=False)
    with mem12._limita_mare_de_recompilari():
        mem12.un_pas(functie, x, tinta)
    return compilator.partitie


def test_faptele_despre_checkpoint_sub_compilare():
    """Ce spune textul despre `checkpoint` sub `torch.compile`, pe torch-ul instalat: `nn.Linear` cu bias devine
    `addmm`; în regiunea compilată, checkpoint-ul ajunge în graf; scos din compilare, nu; un `lambda` ca
    `context_fn` oprește compilarea (pe torch 2.14, cu `NestedUserFunctionVariable`)."""
    def cu_checkpoint(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False)

    partitie = _compileaza_cu(cu_checkpoint)
    assert partitie.checkpointuri() == 1 and partitie.recalculate()["addmm"] >= 1

    @torch.compiler.disable
    def scos(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False)

    assert _compileaza_cu(scos).checkpointuri() == 0

    def politica(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.addmm.default else CheckpointPolicy.PREFER_RECOMPUTE

    def cu_lambda(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False, context_fn=lambda: create_selective_checkpoint_contexts(politica))

    with pytest.raises(Exception) as eroare:
        _compileaza_cu(cu_lambda)
    if torch.__version__.startswith("2.14"):
        assert "NestedUserFunctionVariable" in str(eroare.value)
        assert "NestedUserFunctionVariable" in markdown(CAPITOL)

    context = functools.partial(create_selective_checkpoint_contexts, politica)

    def cu_partial(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False, context_fn=context)

    salvate = _compileaza_cu(cu_partial).salvate_pe_operatie()
    assert "addmm" in salvate
