"""Capitolul 01: afirmațiile corectate după recenzie nu trebuie să revină (kernel-urile Triton
sunt kernel-uri CUDA scrise în alt limbaj, nu „altceva decât CUDA”), iar textul și celulele
folosesc terminologia și formatul numerelor din ghidul de stil."""

import re

import pytest

from curs_compilare.capitole import cap05_reglare as reglare
from text_notebook import RADACINA, markdown, siruri, siruri_din_cod
from text_notebook import surse as _celule

CAPITOL = RADACINA / "notebooks" / "01_primul_torch_compile.ipynb"
SOLUTIE = RADACINA / "solutions" / "01_primul_torch_compile_solutii.ipynb"
#: Uneltele capitolului: ce tipăreau și notau celulele stă acum aici, așa că verificările textului
#: tipărit și ale numerelor se uită, pentru capitol, și în ele.
UNELTE = RADACINA / "curs_compilare" / "capitole" / "cap01_prima_compilare.py"


def _markdown(cale=CAPITOL):
    return markdown(cale)


def _texte_din_cod(cale=CAPITOL) -> list[str]:
    """Șirurile din celulele de cod; pentru capitol, și cele din uneltele lui."""
    texte = siruri_din_cod(cale)
    if cale == CAPITOL:
        texte += siruri(UNELTE.read_text(encoding="utf-8"))
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
    if cale == CAPITOL:
        cod += "\n" + UNELTE.read_text(encoding="utf-8")
    for format_interzis in (r":[<>^]?\d*\.\d+f\}", r":\d*\.?\d*%\}", r":\d*\.?\d*g\}", r":,\}", r'\.replace\(",", " "\)'):
        assert not re.search(format_interzis, cod), f"număr formatat de mână ({format_interzis}): folosește curs_compilare.cifre"


def test_modurile_se_tiparesc_fara_true_false():
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert "list_mode_options()" in cod
    assert "{optiuni if optiuni" not in cod, "dicționarul de opțiuni tipărit ca atare afișează True/False"


# --- enunțurile exercițiilor spun ce verifică verificarea ---------------------------------------


def test_enuntul_exercitiului_1_numeste_ce_verifica_verificarea():
    """Verificarea dă backend-ului și grafuri `torch.fx.symbolic_trace` (cu `call_module` și
    `get_attr`) și apelează funcțiile compilate de mai multe ori: enunțul trebuie să o spună."""
    enunt = next(s for s in _celule(CAPITOL, "markdown") if s.startswith("## Exercițiul 1"))
    for tip in ("call_function", "call_method", "call_module", "placeholder", "get_attr", "output"):
        assert f"`{tip}`" in enunt or f'`"{tip}"`' in enunt, tip
    assert "symbolic_trace" in enunt and "o singură dată" in enunt and "la fiecare apel" in enunt


def _propozitia_de_sub_grafic(inferenta, antrenare, are_gpu, profil="complet"):
    """Ce tipărește capitolul sub graficul secțiunii 3, pentru două accelerări date: propozițiile
    le scrie `explica_incetinirea`, din uneltele capitolului, chemată de celula graficului."""
    import contextlib
    import io
    import types

    from curs_compilare.capitole.cap01_prima_compilare import explica_incetinirea
    from curs_compilare.masurare import Raport

    sursa = next(s for s in _celule(CAPITOL, "code") if "grafic_inferenta_si_antrenare(" in s)
    assert "explica_incetinirea(accelerare_inferenta, accelerare_antrenare, MEDIU, model.numar_parametri(), jetoane)" in sursa
    iesire = io.StringIO()
    with contextlib.redirect_stdout(iesire):
        explica_incetinirea(
            Raport(inferenta, 0.95 * inferenta, 1.05 * inferenta, 5),
            Raport(antrenare, 0.95 * antrenare, 1.05 * antrenare, 5),
            types.SimpleNamespace(are_gpu=are_gpu, profil=profil),
            563_456,
            512,
        )
    return iesire.getvalue()


def test_sub_grafic_o_propozitie_doar_cand_compilarea_a_incetinit():
    from curs_compilare.cifre import cifra_referinta, probleme_de_format
    from curs_compilare.concluzii import contradictii

    assert _propozitia_de_sub_grafic(1.5, 1.3, are_gpu=False) == ""
    assert _propozitia_de_sub_grafic(1.0, 1.01, are_gpu=False) == ""  # în limita zgomotului: nimic de explicat
    text = _propozitia_de_sub_grafic(1.4, 0.52, are_gpu=False)  # pasul de antrenare, 0,52× pe un laptop
    assert text.count("\n") == 1 and "la pasul de antrenare" in text and "(0,52×)" in text
    assert "563 456 de parametri, 512 jetoane pe lot" in text and "Cauza probabilă: " in text
    referinta = cifra_referinta("01.antrenare_accelerare")
    if referinta:
        assert f"Pe {referinta['gpu']}, cu modelul de pe GPU, accelerarea e " in text
    assert contradictii(text) == [] and probleme_de_format(text) == []
    pe_gpu = _propozitia_de_sub_grafic(0.8, 0.9, are_gpu=True)
    assert pe_gpu.count("\n") == 2 and "modelul de aici e mic" not in pe_gpu
