"""Capitolul 01: afirmațiile corectate după recenzie nu trebuie să revină (kernel-urile Triton
sunt kernel-uri CUDA scrise în alt limbaj, nu „altceva decât CUDA”), iar textul și celulele
folosesc terminologia și formatul numerelor din ghidul de stil."""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from curs_compilare import reglare

RADACINA = Path(__file__).resolve().parent.parent
CAPITOL = RADACINA / "notebooks" / "01_primul_torch_compile.ipynb"
SOLUTIE = RADACINA / "solutions" / "01_primul_torch_compile_solutii.ipynb"


def _celule(cale, tip):
    return [c.source for c in nbformat.read(cale, as_version=4).cells if c.cell_type == tip]


def _markdown(cale=CAPITOL):
    return "\n".join(_celule(cale, "markdown"))


def _texte_din_cod(cale=CAPITOL) -> list[str]:
    """Șirurile de caractere din celulele de cod (ce ajunge tipărit), fără identificatori."""
    texte = []
    for sursa in _celule(cale, "code"):
        sursa = "\n".join(l for l in sursa.splitlines() if not l.lstrip().startswith(("%", "!")))
        texte += [n.value for n in ast.walk(ast.parse(sursa)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return texte


def _tot_textul(cale=CAPITOL) -> str:
    return _markdown(cale) + "\n" + "\n".join(_texte_din_cod(cale))


# --- Triton și CUDA ----------------------------------------------------------------------------


def test_kernelurile_triton_sunt_kerneluri_cuda_scrise_in_triton():
    text = _tot_textul()
    for gresit in ("nu în CUDA.", "nu sunt kernel-uri CUDA", "scrise în Triton, nu în CUDA"):
        assert gresit not in text, f"afirmația greșită a revenit: „{gresit}”"
    # distincția corectă: codul sursă e Triton, nu CUDA C++; compilat, rulează ca orice kernel CUDA
    markdown = _markdown()
    assert "nu în CUDA C++" in markdown and "ca pe orice alt kernel CUDA" in markdown
    assert "cubin" in markdown and "PTX" in markdown
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert "etape_compilare_triton()" in cod, "celula care arată etapele lui Triton lipsește"
    assert 'startswith("triton_")' in cod, "profilerul nu mai numără kernel-urile Triton din pasul compilat"


def test_triton_compileaza_pana_la_cubin():
    """Faptul pe care se sprijină textul: Triton duce kernel-ul prin PTX până la cod mașină."""
    pytest.importorskip("triton")
    etape = reglare.etape_compilare_triton()
    assert etape, "backend-ul NVIDIA al lui Triton nu s-a putut citi"
    assert etape.index("ptx") < etape.index("cubin") == len(etape) - 1


# --- terminologie și numere --------------------------------------------------------------------


@pytest.mark.parametrize("cale", [CAPITOL, SOLUTIE], ids=lambda c: c.name)
def test_terminologia_ghidului(cale):
    text = _tot_textul(cale)
    for gresit, corect in (
        (r"\bapelar(?:e|ea|ii)\b|\bapelări", "apel / apeluri / primul apel"),
        (r"[îÎ]nmulțir", "produs de matrice / produse de matrice"),
        (r"dintr-odată", "dintr-o dată"),
        (r"\bvs\.?\b", "față de"),
    ):
        gasite = re.findall(rf".{{0,30}}(?:{gresit}).{{0,20}}", text)
        assert not gasite, f"scrie „{corect}”: {gasite}"


@pytest.mark.parametrize("cale", [CAPITOL, SOLUTIE], ids=lambda c: c.name)
def test_numerele_tiparite_trec_prin_cifre(cale):
    cod = "\n".join(_celule(cale, "code"))
    for format_interzis in (r":[<>^]?\d*\.\d+f\}", r":\d*\.?\d*%\}", r":\d*\.?\d*g\}", r":,\}", r'\.replace\(",", " "\)'):
        assert not re.search(format_interzis, cod), f"număr formatat de mână ({format_interzis}): folosește curs_compilare.cifre"


def test_modurile_se_tiparesc_fara_true_false():
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert "list_mode_options()" in cod
    assert "{optiuni if optiuni" not in cod, "dicționarul de opțiuni tipărit ca atare afișează True/False"
