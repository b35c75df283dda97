"""Trusa atelierului (`atelier/`) și diapozitivele (`curs_compilare.instructor.diapozitive`):

- fiecare secțiune dintr-o agendă există ca titlu „## ” în notebook-ul capitolului, orele se
  leagă, iar minutele se adună la durata scrisă în agendă (3 ore, o zi);
- fișierele trusei există, n-au diacritice cu sedilă și nici propoziții rămase în engleză;
- glosarul are toți termenii din glosarul ghidului de stil pe care îi folosesc notebook-urile, în
  ambele tabele, sortate;
- fișa are harta diagnozei din `curs_compilare.capitole.cap07_diagnoza`;
- fiecare cifră măsurată din trusă vine din rezultatele de referință ale cursului
  (`assets/referinta_*/rezultate.json`) și spune pe ce mașină a fost măsurată; restul cifrelor
  sunt fapte despre hardware sau praguri din codul cursului, enumerate aici;
- diapozitivele unui notebook se construiesc într-un dosar temporar, fără să-l atingă, cu câte
  un diapozitiv pentru fiecare titlu „## ”; `make diapozitive` le face pe toate, iar
  README-ul cursului trimite la trusă.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from curs_compilare.instructor import diapozitive

RADACINA = Path(__file__).resolve().parent.parent
ATELIER = RADACINA / "atelier"
FISIERE = ("README.md", "agenda_3_ore.md", "agenda_o_zi.md", "ghid_instructor.md", "fisa.md", "glosar.md")
CEDILE = "\u015f\u015e\u0163\u0162"
COLOANE_AGENDA = ["ora", "capitol", "secțiune", "minute", "ce faci"]
# agenda → (durata cerută în minute, ora de început)
AGENDE = {"agenda_3_ore.md": (180, "14:00"), "agenda_o_zi.md": (480, "09:00")}
# Cuvinte de legătură englezești care nu există în română: două într-o propoziție înseamnă o
# propoziție rămasă în engleză („are”, „a”, „in”, „an” lipsesc: sunt și cuvinte românești).
CUVINTE_ENGLEZE = {
    "the", "and", "is", "of", "to", "with", "this", "that", "you", "your", "for", "when", "which",
    "it", "be", "not", "can", "will", "from", "by", "on", "should", "must", "have", "has", "into",
    "only", "there", "these", "those", "what", "how", "we", "our", "if", "then", "than", "but",
}
ALFABET_ROMAN = "aăâbcdefghiîjklmnopqrsștțuvwxyz"


def _text(nume: str) -> str:
    return (ATELIER / nume).read_text(encoding="utf-8")


def _fara_cod(text: str) -> str:
    """Textul fără blocuri de cod, cod în linie și adrese: ce rămâne e proză."""
    text = re.sub(r"^```.*?^```", " ", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", " ", text)
    return re.sub(r"\(?https?://\S+", " ", text)


def _tabele(text: str) -> list[list[list[str]]]:
    """Tabelele markdown din text: fiecare, o listă de rânduri (primul e antetul), fără linia
    de separare; celulele fără spațiile de la capete."""
    tabele, curent = [], []
    for linie in text.splitlines() + [""]:
        if linie.startswith("|"):
            celule = [c.strip() for c in linie.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in celule):
                curent.append(celule)
        elif curent:
            tabele.append(curent)
            curent = []
    return tabele


def _titluri_sectiuni(cale: Path) -> list[str]:
    """Titlurile „## ” ale notebook-ului (fără „## ”), în afara blocurilor de cod."""
    titluri = []
    for celula in nbformat.read(cale, as_version=4).cells:
        if celula.cell_type != "markdown":
            continue
        in_cod = False
        for linie in celula.source.splitlines():
            if linie.lstrip().startswith(("```", "~~~")):
                in_cod = not in_cod
            elif not in_cod and linie.startswith("## "):
                titluri.append(linie[3:].strip())
    return titluri


def _notebook(capitol: str) -> Path:
    gasite = sorted((RADACINA / "notebooks").glob(f"{capitol}_*.ipynb"))
    assert len(gasite) == 1, f"capitolul {capitol}: {len(gasite)} notebook-uri în notebooks/"
    return gasite[0]


def _agenda(nume: str) -> list[dict]:
    tabele = [t for t in _tabele(_text(nume)) if t[0] == COLOANE_AGENDA]
    assert len(tabele) == 1, f"{nume}: trebuie exact un tabel cu coloanele {' | '.join(COLOANE_AGENDA)}"
    return [dict(zip(COLOANE_AGENDA, rand)) for rand in tabele[0][1:]]


def _minute(ora: str) -> int:
    potrivire = re.fullmatch(r"(\d\d):(\d\d)", ora)
    assert potrivire, f"ora „{ora}” nu e de forma HH:MM"
    return int(potrivire.group(1)) * 60 + int(potrivire.group(2))


# ---------------------------------------------------------------------------------------------
# Fișierele trusei
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("nume", FISIERE)
def test_fisierul_exista_fara_sedile(nume):
    cale = ATELIER / nume
    assert cale.is_file(), f"lipsește atelier/{nume}"
    text = _text(nume)
    gresite = sorted({c for c in text if c in CEDILE})
    assert not gresite, f"atelier/{nume}: s/t cu sedilă ({', '.join(gresite)}) în loc de ș/ț cu virgulă"


@pytest.mark.parametrize("nume", FISIERE)
def test_fara_propozitii_in_engleza(nume):
    engleze = []
    for propozitie in re.split(r"[.!?;:\n|]", _fara_cod(_text(nume))):
        cuvinte = set(re.findall(r"[a-z]+", propozitie.lower()))
        if len(cuvinte & CUVINTE_ENGLEZE) >= 2:
            engleze.append(propozitie.strip()[:80])
    assert not engleze, f"atelier/{nume}: propoziții în engleză: " + " / ".join(engleze[:5])


def test_detectorul_de_engleza_prinde_o_propozitie():
    propozitie = "This section shows the speedup of the compiled model"
    assert len(set(re.findall(r"[a-z]+", propozitie.lower())) & CUVINTE_ENGLEZE) >= 2
    romana = "Pe un T4, modelul rulează în float16, cu loturi de 4 secvențe: are mai puțină memorie."
    assert len(set(re.findall(r"[a-z]+", romana.lower())) & CUVINTE_ENGLEZE) < 2


def test_fara_cifre_cu_punct_zecimal_in_proza():
    """Virgula zecimală în proză („0,391 s”); în cod și în comenzi, punctul e permis."""
    for nume in FISIERE:
        gresite = re.findall(r"(?<![\w.])\d+\.\d+\s?(?:s|ms|µs|GB/s|TFLOP/s|GiB|MiB|×|%)(?!\w)", _fara_cod(_text(nume)))
        assert not gresite, f"atelier/{nume}: punct zecimal în proză: {', '.join(gresite[:5])}"


# Cifrele din trusă: o cifră măsurată (un timp, o lățime de bandă, o accelerare) vine din
# rezultatele de referință și e însoțită de mașina ei („H200”; pentru referința fără GPU,
# „procesor”). Pentru un T4, cursul n-are măsurători: trusa spune doar ce alege codul acolo.
_NUMAR = r"(?<![\w,.])(\d{1,3}(?: \d{3})+|\d+)(?:,(\d+))?"
_UNITATE = r" ?(TFLOP/s|GB/s|GiB|MiB|KiB|GB|ms|µs|s|%|×(?! ?\d)|de apeluri|apeluri|de pași|pași)(?![\w/])"
# Cifre care nu sunt măsurători, cu sursa lor.
CIFRE_FARA_MASURATOARE = {
    "1 GB",  # definiția din capitolul 00: 1 GB = 10⁹ octeți
    "1 GiB",  # tensorul mare al capitolului 03: 2²⁸ valori float32, pe orice GPU
    "40 GiB",  # mediu.MEMORIE_GPU_MARE_GIB: sub el, loturi mai mici (un T4)
    "14,74 GiB",  # memoria unui T4 (15 095 MiB raportați de total_memory), mediu.py
    "141 GB",  # memoria unui H200 (fapt despre hardware)
    "64 KiB",  # memoria partajată pe bloc a unui T4 (mediu.py; indiciul exercițiului 1 din 05)
    "227 KiB",  # memoria partajată pe bloc a unui H100/H200 (indiciul exercițiului 1 din 05)
    "1×",  # „la fel de rapid”
    "1,1×",  # pragul lotului rentabil din capitolul 04 (04.loturi_primul_fara_castig)
    "1,2×",  # accelerarea minimă cerută de exercițiul 4 din capitolul 07
    "90%",  # masurare.PRAG_LIMITAT_DE_GPU: de aici în sus, un apel e limitat de GPU
}


def _valori_de_referinta() -> dict[str, list[tuple[float, str]]]:
    """Pentru fiecare referință („H200”, „procesor”): toate valorile ei, cu unitatea lor, cu
    capetele intervalelor și cu duratele notebook-urilor (în secunde)."""
    valori = {}
    for masina, dosar in (("H200", "referinta_h200"), ("procesor", "referinta_cpu")):
        date = json.loads((RADACINA / "assets" / dosar / "rezultate.json").read_text(encoding="utf-8"))
        lista = [(n["secunde"], "s") for n in date["notebookuri"]]
        for cifra in date["cifre"]:
            lista += [(v, cifra["unitate"]) for v in [cifra["valoare"], *(cifra.get("interval") or [])]]
        valori[masina] = lista
    return valori


def _cifre_masurate(text: str):
    """(cifra scrisă, valoarea, numărul de zecimale, unitatea, bucata de text în care stă) pentru
    fiecare cifră cu unitate din proza lui `text`; bucățile sunt propoziții, celule de tabel,
    paragrafe."""
    for bucata in re.split(r"\||\.\s+|\n\s*\n", _fara_cod(text)):
        bucata = " ".join(bucata.split())
        for potrivire in re.finditer(_NUMAR + _UNITATE, bucata):
            intreg, zecimale = potrivire.group(1), potrivire.group(2) or ""
            valoare = float(intreg.replace(" ", "") + ("." + zecimale if zecimale else ""))
            unitate = potrivire.group(3).removeprefix("de ")
            yield potrivire.group(0), valoare, len(zecimale), unitate, bucata


def _din_referinta(valoare: float, zecimale: int, unitate: str, referinte) -> bool:
    """Adevărat dacă o valoare de referință cu aceeași unitate, rotunjită la `zecimale`, e
    chiar `valoare`."""
    return any(u == unitate and math.isclose(round(r, zecimale), valoare, abs_tol=1e-9) for r, u in referinte)


@pytest.mark.parametrize("nume", FISIERE)
def test_cifrele_vin_din_referinta_si_spun_masina(nume):
    referinte = _valori_de_referinta()
    gresite = []
    for scrisa, valoare, zecimale, unitate, bucata in _cifre_masurate(_text(nume)):
        if scrisa in CIFRE_FARA_MASURATOARE:
            continue
        masini = [m for m, valori in referinte.items() if _din_referinta(valoare, zecimale, unitate, valori)]
        etichetate = [m for m in masini if m in bucata or (m == "procesor" and "fără GPU" in bucata)]
        if not masini:
            gresite.append(f"„{scrisa}” nu e în nicio referință („{bucata[:70]}…”)")
        elif not etichetate:
            gresite.append(f"„{scrisa}” nu spune pe ce mașină a fost măsurată ({' sau '.join(masini)}): „{bucata[:70]}…”")
    assert not gresite, f"atelier/{nume}: " + "; ".join(gresite[:6])


def test_detectorul_de_cifre_prinde_o_cifra_inventata():
    # o cifră adevărată a referinței (partea din plafon a lanțului compilat, capitolul 03), scrisă
    # cum o scrie cursul, lângă una inventată; testul nu depinde de valoarea din referința de acum
    date = json.loads((RADACINA / "assets" / "referinta_h200" / "rezultate.json").read_text(encoding="utf-8"))
    plafon = next(c["valoare"] for c in date["cifre"] if c["cheie"] == "03.lant_compilat_din_plafon")
    scris = f"{plafon:.1f}".replace(".", ",")
    text = f"Pe un T4, lanțul compilat atinge 287 GB/s. Referință H200: {scris}% din plafon, 16 × 16."
    cifre = [(s, b) for s, _, _, _, b in _cifre_masurate(text)]
    assert [s for s, _ in cifre] == ["287 GB/s", f"{scris}%"]
    referinte = _valori_de_referinta()
    assert not _din_referinta(287, 0, "GB/s", referinte["H200"])
    assert _din_referinta(round(plafon, 1), 1, "%", referinte["H200"])
    assert not _din_referinta(round(plafon, 1), 1, "×", referinte["H200"])
    assert "H200" not in cifre[0][1] and "H200" in cifre[1][1]


# ---------------------------------------------------------------------------------------------
# Agendele
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("nume", list(AGENDE))
def test_sectiunile_agendei_exista_in_notebookuri(nume):
    randuri = _agenda(nume)
    assert randuri, f"{nume}: agenda e goală"
    lipsa, capitole = [], set()
    for rand in randuri:
        capitol = rand["capitol"]
        if capitol == "—":
            assert rand["secțiune"], f"{nume}: un bloc fără nume"
            continue
        assert re.fullmatch(r"0[0-7]", capitol), f"{nume}: capitolul „{capitol}” nu e 00–07 sau „—”"
        capitole.add(capitol)
        if rand["secțiune"] not in _titluri_sectiuni(_notebook(capitol)):
            lipsa.append(f"{capitol} „{rand['secțiune']}”")
    assert not lipsa, f"{nume}: secțiuni care nu sunt titluri „## ” în notebook: " + "; ".join(lipsa)
    assert capitole, f"{nume}: niciun capitol"


@pytest.mark.parametrize("nume", list(AGENDE))
def test_orele_si_durata_agendei(nume):
    durata_ceruta, inceput = AGENDE[nume]
    text = _text(nume)
    scrisa = re.search(r"\*\*Durata totală:\*\* (\d+) de minute", text)
    assert scrisa, f"{nume}: lipsește rândul „**Durata totală:** N de minute”"
    assert int(scrisa.group(1)) == durata_ceruta, f"{nume}: durata scrisă e {scrisa.group(1)}, nu {durata_ceruta}"
    randuri = _agenda(nume)
    ora = _minute(inceput)
    for rand in randuri:
        assert _minute(rand["ora"]) == ora, (
            f"{nume}: blocul „{rand['secțiune']}” începe la {rand['ora']}, dar cel de dinainte se termină la "
            f"{ora // 60:02d}:{ora % 60:02d}"
        )
        assert re.fullmatch(r"[1-9]\d*", rand["minute"]), f"{nume}: „{rand['minute']}” nu e un număr de minute"
        assert rand["ce faci"], f"{nume}: blocul „{rand['secțiune']}” nu spune ce faci"
        ora += int(rand["minute"])
    total = sum(int(r["minute"]) for r in randuri)
    assert total == durata_ceruta, f"{nume}: blocurile însumează {total} de minute, nu {durata_ceruta}"
    pauze = [r for r in randuri if r["capitol"] == "—" and re.match(r"(Pauză|Prânz)", r["secțiune"])]
    assert pauze, f"{nume}: agenda n-are nicio pauză"


# ---------------------------------------------------------------------------------------------
# Glosarul și fișa
# ---------------------------------------------------------------------------------------------


def _ghid() -> Path | None:
    for cale in (RADACINA.parent / "shared" / "stil" / "GHID.md", RADACINA / "shared" / "stil" / "GHID.md"):
        if cale.is_file():
            return cale
    return None


def _termeni(celula: str) -> list[str]:
    """Termenii unei celule a glosarului ghidului: fără paranteze și fără italice, despărțiți la „/”."""
    celula = re.sub(r"\([^)]*\)", " ", celula.replace("*", ""))
    return [" ".join(t.split()) for t in celula.split("/") if t.strip()]


def _normalizeaza(text: str) -> str:
    return " ".join(text.replace("*", "").replace("`", "").lower().split())


def _cheie_ro(text: str) -> list[int]:
    text = text.replace("*", "").replace("`", "").lower()
    return [ALFABET_ROMAN.index(c) + 20 if c in ALFABET_ROMAN else ord(c) % 20 for c in text]


def _tabelele_glosarului():
    tabele = {tuple(t[0]): t[1:] for t in _tabele(_text("glosar.md"))}
    ro = tabele.get(("română", "engleză", "capitolul"))
    en = tabele.get(("engleză", "română", "capitolul"))
    assert ro and en, "glosar.md trebuie să aibă tabelele „română | engleză | capitolul” și „engleză | română | capitolul”"
    return ro, en


def test_glosarul_are_termenii_ghidului():
    ghid = _ghid()
    if ghid is None:
        pytest.skip("ghidul de stil (shared/stil/GHID.md) nu e lângă curs")
    text = ghid.read_text(encoding="utf-8")
    sectiune = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    randuri = [r for t in _tabele(sectiune) for r in t[1:]]
    assert len(randuri) > 20, "n-am găsit tabelul glosarului în ghid"
    ro, en = _tabelele_glosarului()
    coloana_ro = _normalizeaza("\n".join(r[0] for r in ro))
    coloana_en = _normalizeaza("\n".join(r[0] for r in en))
    # Ghidul are și termenii capitolelor care urmează (rang, all-reduce, mască pe blocuri...):
    # glosarul trusei îi cere pe cei pe care textul notebook-urilor îi folosește deja (toți
    # termenii românești ai rândului, ca „fragment / fragmentare”, cuvinte întregi).
    text_notebookuri = _normalizeaza(" ".join(
        celula.source for cale in sorted((RADACINA / "notebooks").glob("*.ipynb"))
        for celula in nbformat.read(cale, as_version=4).cells if celula.cell_type == "markdown"
    ))
    folositi = [
        (englez, roman) for englez, roman in randuri
        if all(re.search(rf"(?<!\w){re.escape(_normalizeaza(t))}(?!\w)", text_notebookuri) for t in _termeni(roman))
    ]
    assert len(folositi) > 20, "prea puțini termeni ai ghidului găsiți în notebook-uri"
    lipsa = []
    for englez, roman in folositi:
        lipsa += [f"„{t}” (engleză)" for t in _termeni(englez) if _normalizeaza(t) not in coloana_en]
        lipsa += [f"„{t}” (română)" for t in _termeni(roman) if _normalizeaza(t) not in coloana_ro + "\n" + coloana_en]
    assert not lipsa, "termeni din glosarul ghidului care lipsesc din atelier/glosar.md: " + ", ".join(lipsa)


def test_glosarul_are_aceleasi_perechi_in_ambele_sensuri_sortate():
    ro, en = _tabelele_glosarului()
    perechi_ro = {(r[0], r[1]) for r in ro}
    perechi_en = {(r[1], r[0]) for r in en}
    assert perechi_ro == perechi_en, (
        "tabelele nu au aceleași perechi: doar în română → engleză: "
        f"{sorted(perechi_ro - perechi_en)[:5]}; doar în engleză → română: {sorted(perechi_en - perechi_ro)[:5]}"
    )
    assert len(perechi_ro) == len(ro), "un rând se repetă în tabelul română → engleză"
    assert [r[0] for r in ro] == sorted((r[0] for r in ro), key=_cheie_ro), "tabelul român nu e în ordinea alfabetului român"
    assert [r[0] for r in en] == sorted((r[0] for r in en), key=lambda t: t.replace("`", "").lower()), (
        "tabelul englez nu e în ordine alfabetică"
    )
    for termen in ("gardă", "întrerupere a grafului", "găleți", "compilare regională", "mega-cache", "trapă de ieșire"):
        assert any(r[0].startswith(termen) for r in ro), f"glosarul n-are termenul „{termen}”"


def test_fisa_are_harta_diagnozei_si_modurile():
    from curs_compilare.capitole.cap07_diagnoza import HARTA_DIAGNOZEI

    fisa = _text("fisa.md")
    for pas in HARTA_DIAGNOZEI:
        assert pas.simptom in fisa, f"fisa.md: lipsește simptomul „{pas.simptom}” din harta diagnozei"
        assert pas.comanda in fisa, f"fisa.md: lipsește comanda „{pas.comanda}” din harta diagnozei"
    for mod in ('"default"', '"reduce-overhead"', '"max-autotune"', '"max-autotune-no-cudagraphs"'):
        assert f"mode={mod}" in fisa, f"fisa.md: lipsește modul {mod}"
    cod_notebookuri = "\n".join(p.read_text(encoding="utf-8") for p in (RADACINA / "notebooks").glob("*.ipynb"))
    for valoare in ("graph_breaks", "recompiles", "recompiles_verbose", "guards", "output_code", "cudagraphs", "perf_hints"):
        assert valoare in cod_notebookuri, f"cursul nu mai folosește {valoare}: scoate-l din fișă"
        assert f"`{valoare}`" in fisa, f"fisa.md: lipsește valoarea {valoare} a lui TORCH_LOGS"


# ---------------------------------------------------------------------------------------------
# Diapozitivele
# ---------------------------------------------------------------------------------------------


class _Diapozitive(HTMLParser):
    """Diapozitivele dintr-un HTML: pentru fiecare `<section>` de pe primul nivel,
    titlurile h1–h3 din el (textul lor)."""

    def __init__(self):
        super().__init__()
        self.adancime, self.diapozitive, self._titlu, self._text = 0, [], None, ""

    def handle_starttag(self, eticheta, atribute):
        if eticheta == "section":
            self.adancime += 1
            if self.adancime == 1:
                self.diapozitive.append([])
        elif eticheta in ("h1", "h2", "h3") and self.adancime:
            self._titlu, self._text = eticheta, ""

    def handle_endtag(self, eticheta):
        if eticheta == "section":
            self.adancime -= 1
        elif eticheta == self._titlu:
            self.diapozitive[-1].append((eticheta, " ".join(self._text.split())))
            self._titlu = None

    def handle_data(self, date):
        if self._titlu:
            self._text += date


def _fara_markdown(titlu: str) -> str:
    return " ".join(titlu.replace("`", "").replace("*", "").split())


def test_imparte_la_titluri_sare_peste_blocurile_de_cod():
    sursa = "text\n## A\nunu\n```python\n# nu e titlu\n```\n### B\ndoi\n#### C rămâne\n"
    bucati = diapozitive.imparte_la_titluri(sursa)
    assert [b.splitlines()[0] for b in bucati] == ["text", "## A", "### B"]
    assert [diapozitive.tip_diapozitiv(b) for b in bucati] == ["-", "slide", "subslide"]
    assert "# nu e titlu" in bucati[1] and "#### C rămâne" in bucati[2]


def test_diapozitivele_unui_notebook(tmp_path):
    cale = _notebook("04")
    inainte = hashlib.sha256(cale.read_bytes()).hexdigest()
    scris = diapozitive.construieste(cale, tmp_path)
    assert hashlib.sha256(cale.read_bytes()).hexdigest() == inainte, "construirea a modificat notebook-ul"
    assert scris == tmp_path / f"{cale.stem}.slides.html" and scris.is_file()
    html = scris.read_text(encoding="utf-8")
    assert '<html lang="ro">' in html
    assert "— diapozitive</title>" in html

    parser = _Diapozitive()
    parser.feed(html)
    titluri_html = [t for d in parser.diapozitive for e, t in d if e == "h2"]
    titluri_nb = [_fara_markdown(t) for t in _titluri_sectiuni(cale)]
    assert titluri_html == titluri_nb, "diapozitivele nu au titlurile „## ” ale notebook-ului, în ordine"
    # primul diapozitiv e titlul capitolului; fiecare alt diapozitiv începe cu o secțiune „## ”
    assert parser.diapozitive[0] and parser.diapozitive[0][0][0] == "h1"
    assert len(parser.diapozitive) == len(titluri_nb) + 1
    for diapozitiv in parser.diapozitive[1:]:
        assert diapozitiv and diapozitiv[0][0] == "h2", f"un diapozitiv nu începe cu o secțiune: {diapozitiv[:2]}"
        assert [e for e, _ in diapozitiv].count("h2") == 1, f"două secțiuni pe același diapozitiv: {diapozitiv}"
    # celula de pregătire lipsește, ilustrația ospătarului e pusă ca imagine
    assert "Pregătirea mediului" not in html
    assert "data:image/png;base64" in html


def test_pregateste_nu_schimba_notebookul_primit():
    nb = nbformat.read(_notebook("03"), as_version=4)
    copie = nbformat.writes(nb)
    pregatit = diapozitive.pregateste(nb)
    assert nbformat.writes(nb) == copie
    tipuri = [c.metadata["slideshow"]["slide_type"] for c in pregatit.cells]
    assert set(tipuri) <= {"slide", "subslide", "-", "skip"}
    assert tipuri[0] == "slide" and tipuri.count("skip") == 1
    assert all(t == "subslide" for c, t in zip(pregatit.cells, tipuri) if c.cell_type == "code" and t != "skip")


# ---------------------------------------------------------------------------------------------
# Comanda și README-ul
# ---------------------------------------------------------------------------------------------


def test_makefile_are_comanda_diapozitive():
    makefile = (RADACINA / "Makefile").read_text(encoding="utf-8")
    reteta = re.search(r"^diapozitive:(.*)\n((?:\t.*\n?)+)", makefile, re.M)
    assert reteta, "Makefile-ul n-are ținta `diapozitive`"
    assert "$(MEDIU)" in reteta.group(1), "ținta `diapozitive` trebuie să depindă de $(MEDIU)"
    assert "$(PY) -m curs_compilare.instructor.diapozitive" in reteta.group(2)
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M)
    assert phony and "diapozitive" in phony.group(1).split(), "`diapozitive` lipsește din .PHONY"
    antet = makefile.split("\n\n", 1)[0]
    assert re.search(r"^#\s+make diapozitive — \S", antet, re.M), "antetul Makefile-ului nu descrie `make diapozitive`"


def test_readme_trimite_la_trusa():
    readme = (RADACINA / "README.md").read_text(encoding="utf-8")
    assert "\n### Trusa atelierului\n" in readme, "README-ul n-are subsecțiunea „### Trusa atelierului”"
    sectiune = readme.split("\n### Trusa atelierului\n", 1)[1].split("\n#", 1)[0]
    assert "](atelier/)" in sectiune and "make diapozitive" in sectiune


@pytest.mark.parametrize("capitol", ["08", "09", "10", "11", "12"])
def test_varianta_cu_un_capitol_optional_din_agenda_o_zi(capitol):
    """Blocul opțional al capitolului 08 (09, 10) înlocuiește blocurile capitolului 07 de la aceeași
    oră până la aceeași oră: secțiunile lui sunt titluri din notebook-uri, orele se înlănțuie, iar
    durata lui e exact a blocurilor înlocuite."""
    antet = [f"ora (varianta cu {capitol})", "capitol", "secțiune", "minute", "ce faci"]
    tabele = [t for t in _tabele(_text("agenda_o_zi.md")) if t[0] == antet]
    assert len(tabele) == 1, f"agenda de o zi trebuie să aibă un singur tabel al variantei cu {capitol}"
    varianta = [dict(zip(COLOANE_AGENDA, rand)) for rand in tabele[0][1:]]
    assert any(r["capitol"] == capitol for r in varianta)
    for rand in varianta:
        assert rand["capitol"] in (capitol, "07"), rand
        assert rand["secțiune"] in _titluri_sectiuni(_notebook(rand["capitol"])), rand["secțiune"]
    inceput, ora = _minute(varianta[0]["ora"]), _minute(varianta[0]["ora"])
    for rand in varianta:
        assert _minute(rand["ora"]) == ora, rand
        ora += int(rand["minute"])
    zi = _agenda("agenda_o_zi.md")
    ore = [_minute(r["ora"]) for r in zi]
    assert inceput in ore and ora in ore, "varianta trebuie să înceapă și să se termine la ore din agenda zilei"
    inlocuite = [r for r in zi if inceput <= _minute(r["ora"]) < ora]
    assert inlocuite and {r["capitol"] for r in inlocuite} <= {"07"}, "varianta înlocuiește doar blocuri ale lui 07"
