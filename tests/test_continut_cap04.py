"""Capitolul 04: afirmațiile corectate despre grafurile CUDA ale lui `reduce-overhead` nu au voie
să revină (ordinea fazelor, numărul de grafuri cu forme dinamice, memoria grafurilor)."""

import re
from pathlib import Path

import nbformat

CAPITOL = Path(__file__).resolve().parent.parent / "notebooks" / "04_cuda_graphs_reduce_overhead.ipynb"


def _text(tip: str) -> str:
    return "\n".join(c.source for c in nbformat.read(CAPITOL, as_version=4).cells if c.cell_type == tip)


def test_ordinea_fazelor_este_incalzire_capturare_reluare():
    proza = _text("markdown")
    assert not re.search(r"al doilea (apel )?încălzește|abia al treilea capturează|primul compilează, al doilea", proza)
    assert "**al doilea** capturează graful" in proza
    # și capitolul o arată live, nu doar o afirmă
    assert "fazele_apelurilor(" in _text("code")


def test_mark_dynamic_nu_e_prezentat_ca_remediu_pentru_numarul_de_grafuri():
    proza = _text("markdown")
    assert "marchezi explicit ce dimensiuni sunt dinamice" not in proza
    assert "cudagraph_skip_dynamic_graphs" in proza and "cudagraph_dynamic_shape_warn_limit" in proza
    assert "mark_dynamic" in _text("code")


def test_memoria_grafurilor_e_grupul_comun_nu_suma():
    proza = _text("markdown")
    assert "fiecare formă nouă înseamnă încă un graf" not in proza
    assert "nu cât suma lor" in proza
    assert "stare_grafuri()" in _text("code")


def test_modificarea_pe_loc_a_bufferelor_e_aratata_ca_permisa():
    assert "index_copy_" in _text("code")
    assert "mark_static_address" in _text("markdown")


def test_fara_dintr_odata():
    assert "dintr-odată" not in _text("markdown") + _text("code")


SOLUTII = CAPITOL.parent.parent / "solutions" / "04_cuda_graphs_reduce_overhead_solutii.ipynb"


def test_enunturile_exercitiilor_spun_ce_cere_verificarea():
    # verificările folosesc intrări noi la fiecare rulare și verifică mecanismul: enunțul o spune
    proza = _text("markdown")
    assert "`graf` are doar metoda `replay()`" in proza
    assert "`model` poate fi doar apelat" in proza and "lungimi diferite" in proza
    assert "seturi noi la fiecare rulare" in proza
    assert "trei intrări noi" not in proza


def test_solutia_nu_recomanda_cpu_ca_remediu():
    # dispozitivul se compară strict: o copie pe CPU a ieșirii de pe GPU nu e răspunsul cerut
    text = "\n".join(c.source for c in nbformat.read(SOLUTII, as_version=4).cells if c.cell_type == "markdown")
    assert "e tot o copie" not in text
    assert "rămâne pe dispozitivul modelului" in text
