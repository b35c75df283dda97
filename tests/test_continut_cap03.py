"""Conținutul capitolului 03 și al soluțiilor lui: afirmațiile tehnice corectate (interpretorul
Triton, kernel-ul pentru formă fixă, softmax-ul online, cache-ul Dynamo al lanțurilor), numerele
tipărite prin `curs_compilare.cifre` și celule care nu lasă în urmă o valoare `Out[]`."""

import ast
import re

import pytest

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, cod, markdown
from text_notebook import celule as _celule

CAPITOL = RADACINA / "notebooks" / "03_fuziunea_kernelurilor.ipynb"
SOLUTII = RADACINA / "solutions" / "03_fuziunea_kernelurilor_solutii.ipynb"
FISIERE = [CAPITOL, SOLUTII]
PACHET = [RADACINA / "curs_compilare" / "exercitii" / "cap03.py", RADACINA / "curs_compilare" / "capitole" / "cap03_fuziune.py"]


def _markdown(cale=CAPITOL):
    return markdown(cale)


def _cod(cale=CAPITOL):
    return cod(cale)


def test_interpretorul_triton_lucreaza_pe_blocuri():
    """TRITON_INTERPRET=1 rulează programele unul după altul, fiecare pe blocul întreg, ca
    tablouri NumPy (triton/runtime/interpreter.py: GridExecutor și create_make_range)."""
    text = _markdown()
    assert "element cu element din fiecare bloc" not in text
    assert "program după program" in text and "blocul întreg" in text and "NumPy" in text


def test_forma_fixa_castiga_din_masca_nu_din_aliniere():
    text = _markdown()
    assert "știe că adresele sunt aliniate" not in text
    assert "masca devine o constantă" in text and "`xmask = xindex < xnumel`" in text
    cod = _cod()
    assert "linii_cheie(" in cod and "cod_generat(" in cod, "diferența dintre kernel-uri se arată pe codul generat"


def test_softmax_online_si_trecerile_numarate_pe_cod():
    text, cod = _markdown(), _cod()
    assert "softmax-ul online" in text and "online_softmax" in text
    assert "Trei treceri devin două" in text
    assert "x.amax(dim=-1, keepdim=True)" in cod, "softmax-ul măsurat folosește amax (tiparul recunoscut de Inductor)"
    assert "treceri_prin_rand(" in cod, "trecerile se numără pe kernel-ul generat"
    # run_and_get_code apelează torch._dynamo.reset() și ar arunca toate compilările capitolului
    assert "run_and_get_code" not in cod
    assert "rândul întreg stă în registre cât durează toate trecerile" not in text


def test_lantul_are_obiect_de_cod_propriu_explicat():
    text = _markdown()
    assert "obiectul de cod" in text and "același `def`" in text
    sursa = (RADACINA / "curs_compilare" / "capitole" / "cap03_fuziune.py").read_text(encoding="utf-8")
    assert "Nu folosim `exec`" not in sursa
    assert "CodeId" in sursa and "extra_state.h" in sursa


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_numerele_tiparite_trec_prin_cifre(cale):
    for celula in _celule(cale, "code"):
        gasite = FORMAT_INTERZIS.findall(celula.source)
        assert not gasite, f"numere formatate de mână (folosește curs_compilare.cifre): {gasite}"
        assert ":2d}" not in celula.source and '.replace(",", " ")' not in celula.source


@pytest.mark.parametrize("cale", PACHET, ids=lambda c: c.name)
def test_pachetul_scrie_numerele_prin_cifre(cale):
    gasite = FORMAT_INTERZIS.findall(cale.read_text(encoding="utf-8"))
    assert not gasite, f"{cale.name} formatează numere de mână: {gasite}"


def test_titlurile_folosesc_formatorii():
    # graficele și tabelele capitolului stau acum în unealta lui: le cauți în amândouă
    cod = _cod() + "\n" + PACHET[1].read_text(encoding="utf-8")
    assert "{forma_softmax[0]} × {forma_softmax[1]}" not in cod
    assert "[str(k) for k in numere_sinusuri]" not in cod
    assert 'f"{numar_operatii} operații' not in cod


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_terminologia(cale):
    text = _markdown(cale)
    comentarii = "\n".join(l.split("#", 1)[1] for l in _cod(cale).splitlines() if "#" in l)
    assert not APELARE.findall(text), "scrie „apel / apeluri”"
    assert not NOI.findall(text + comentarii), "textul se adresează cu „tu”, nu cu „noi”"
    assert "lanțul nostru" not in text
    assert not re.search(r"înmulțir\w* de matrice|dintr-odată|\bvs\b", text)


#: Apelurile cu care o celulă poate să se termine (nu întorc nimic sau au reprezentare HTML).
#: `inregistreaza_…` sunt uneltele capitolului care înregistrează cifrele (întorc None, vezi
#: tests/test_fuziune_si_ilustratii.py).
PERMISE_LA_FINAL = (
    "print", "grafice.arata", "ilustratii.arata", "exploreaza", "verificari.exercitiul_", "rezultat", "cifre.inregistreaza",
    "inregistreaza_",
)


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_nicio_celula_nu_lasa_out(cale):
    """Sub nbval (`store_history=False`), „;” nu mai ascunde valoarea ultimei expresii."""
    for celula in _celule(cale, "code"):
        fara_magice = "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in celula.source.splitlines())
        corp = ast.parse(fara_magice).body
        if corp and isinstance(corp[-1], ast.Expr):
            text = ast.unparse(corp[-1].value)
            assert text.startswith(PERMISE_LA_FINAL), f"celula se termină cu o valoare (Out[]): {text[:80]}"


def test_exercitiul_2_spune_ce_verifica():
    """Enunțul spune ce cere verificarea (float16, limita de timp, funcția care lansează singură
    kernel-ul), iar soluția convertește la float32 înainte de tl.sigmoid."""
    text = _markdown()
    enunt = text[text.index("## Exercițiul 2"):text.index("## Exercițiul 3")]
    assert "`float16`" in enunt and ".to(tl.float32)" in enunt
    assert "limită de timp" in enunt and "unul câte unul" in enunt
    assert "swiglu(a, b)" in enunt and "cel puțin 64" in enunt
    solutie = _cod(SOLUTII)
    assert "tl.load(a_ptr + offsets, mask=masca).to(tl.float32)" in solutie
    assert "verificari.exercitiul_2(swiglu)" in solutie


@pytest.mark.parametrize("are_gpu", [True, False], ids=["gpu", "cpu"])
def test_nota_peste_plafon_apare_doar_peste_plafon_si_spune_de_ce(are_gpu):
    """Nota de sub măsurătorile lanțului (acum în unealta capitolului, `nota_peste_plafon`), cu
    aceleași cazuri: sub plafon și zgomot, un tensor mic care încape în cache, unul cât plafonul."""
    import types

    from curs_compilare import cifre
    from curs_compilare.capitole.cap03_fuziune import nota_peste_plafon

    assert "nota_peste_plafon(" in _cod(), "capitolul spune de ce o lățime de bandă trece de plafon"
    plafon = types.SimpleNamespace(gbps=80.0, octeti_copiati=16 * 2**20)

    def nota(latime_gbps, octeti_tensor):
        return nota_peste_plafon(latime_gbps, octeti_tensor, plafon, are_gpu)

    assert nota(80.0, 256 * 2**10) == "" and nota(83.0, 256 * 2**10) == ""  # sub 5% peste: zgomot
    text = nota(400.0, 256 * 2**10)
    assert text.startswith("Peste plafon (500%): tensorul de 256 KiB încape") and "de 16 MiB" in text
    assert ("L2" in text) == are_gpu and ("procesorului" in text) != are_gpu
    assert "zgomotul" in nota(100.0, 16 * 2**20)  # cât tensorul plafonului: nu e cache-ul
    assert cifre.probleme_de_format(text) == []


@pytest.mark.parametrize("profil, are_gpu, motiv", [
    ("rapid", False, "profilul rapid"), ("complet", False, "pe procesor"), ("complet", True, "pe GPU-ul tău")])
def test_sub_graficul_exercitiului_3_abaterile_de_la_model(profil, are_gpu, motiv):
    """Nota de sub graficul exercițiului 3 (acum `nota_abateri_de_la_model`), cu aceleași cazuri."""
    from curs_compilare import cifre
    from curs_compilare.capitole.cap03_fuziune import nota_abateri_de_la_model
    from curs_compilare.exercitii import cap03
    from curs_compilare.masurare import Raport

    assert "nota_abateri_de_la_model(" in _cod(), "capitolul spune de ce măsurătoarea se abate de la model"

    def nota(masurate):
        return nota_abateri_de_la_model(masurate, cap03.ACCELERARI_ASTEPTATE, profil, are_gpu, 2**20 * 4)

    aproape = {l: Raport(a, a, a) for l, a in cap03.ACCELERARI_ASTEPTATE.items()}
    assert nota(aproape) == ""
    departe = {**aproape, "A": Raport(0.5, 0.5, 0.5), "D": Raport(3.0, 3.0, 3.0)}
    text = nota(departe)
    assert "cu mai mult de o treime la A și D." in text and motiv in text
    assert cifre.probleme_de_format(text) == []
