"""Capitolul 04: afirmațiile corectate despre grafurile CUDA ale lui `reduce-overhead` nu au voie
să revină (ordinea fazelor, numărul de grafuri cu forme dinamice, memoria grafurilor)."""

import re
from pathlib import Path

import nbformat
import pytest

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


def _propozitiile_loturilor(loturi, accelerari, are_gpu):
    """Ce tipărește, sub graficul loturilor, capitolul (prin `propozitii_loturi`, cu pragul
    capitolului), pentru niște accelerări date."""
    from curs_compilare.capitole.cap04_grafuri_cuda import propozitii_loturi
    from curs_compilare.masurare import Raport

    sursa = next(c.source for c in nbformat.read(CAPITOL, as_version=4).cells if "PRAG_CASTIG = 1.1" in c.source)
    assert "propozitii_loturi(loturi, rapoarte_loturi, PRAG_CASTIG, MEDIU.are_gpu)" in sursa
    rapoarte_loturi = [Raport(a, 0.95 * a, 1.05 * a, 5, jos=0.98 * a, sus=1.02 * a) for a in accelerari]
    return propozitii_loturi(loturi, rapoarte_loturi, 1.1, are_gpu) + "\n"


@pytest.mark.parametrize("are_gpu", [True, False], ids=["gpu", "cpu"])
@pytest.mark.parametrize("loturi, accelerari, asteptat", [
    ([1], [2.0], "Ai măsurat un singur lot: acolo, câștigul e de cel puțin 1,1×."),
    ([1], [0.9], "Ai măsurat un singur lot: acolo, câștigul e sub 1,1×."),
    ([1, 16, 256], [3.0, 2.0, 1.5], "Câștigul e de cel puțin 1,1× pe toate loturile măsurate, până la lotul 256"),
    ([1, 16, 256], [0.5, 0.6, 0.9], "Câștigul e sub 1,1× pe toate loturile măsurate, de la lotul 1 la lotul 256"),
    ([1, 16, 256, 1024], [1.0, 1.3, 0.9, 1.0], "Câștigul e sub 1,1× chiar de la cel mai mic lot (1); doar la lotul 16 trece de 1,1×"),
    ([1, 64, 2048, 4096], [5.0, 3.0, 1.05, 1.2],
     "Câștigul e de cel puțin 1,1× de la lotul 1 până la lotul 64 și scade sub 1,1× prima dată la lotul 2 048."),
    ([1, 8, 64], [5.0, 1.05, 1.0], "Câștigul e de cel puțin 1,1× doar la lotul 1 și scade sub 1,1× prima dată la lotul 8."),
])
def test_propozitia_pragului_de_castig_se_potriveste_cu_cifrele(loturi, accelerari, asteptat, are_gpu):
    from curs_compilare.cifre import probleme_de_format
    from curs_compilare.concluzii import contradictii

    text = _propozitiile_loturilor(loturi, accelerari, are_gpu)
    assert asteptat in text
    assert not re.search(r"scade sub 1,1×: \d", text)  # forma veche, „scade sub 1,1×: 1”
    assert contradictii(text) == [] and probleme_de_format(text) == []
    # pe CPU, curba nu e pusă pe seama lansărilor sau a grafurilor CUDA
    assert ("costul lansărilor" in text) == (are_gpu and min(accelerari) >= 1.1 and len(loturi) > 1)
