"""Cifrele-cheie ale fiecărui capitol: cele măsurate acum și cele de referință.

Un capitol apelează `inregistreaza(...)` pentru fiecare cifră importantă pe care a măsurat-o
(lățime de bandă, accelerare, secunde de compilare), cu intervalul ei (cea mai mică și cea
mai mare dintre medianele rundelor de măsurare) și cu mențiunea dacă depinde de procesorul
mașinii. Când
rulează sub `make validare`, cifrele ajung în raportul validării; altfel nu se întâmplă nimic.

`referinta()` citește cifrele de referință livrate cu cursul (măsurate pe un H200), pe care
capitolele le arată acolo unde mașina ta nu poate măsura singură (de exemplu fără GPU).
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

__all__ = [
    "inregistreaza",
    "referinta",
    "afiseaza_referinta",
    "cifra_referinta",
    "are_referinta",
    "despre_referinta",
    "radacina_cursului",
    "format_numar",
    "format_procent",
    "format_timp",
    "format_octeti",
    "cu_substantiv",
    "cu_unitate",
    "cu_prefix",
    "prefix_comun",
    "da_nu",
    "are_nevoie_de_de",
    "probleme_de_format",
    "descrie_cifra",
    "VARIABILA_FISIER",
]

#: Variabila de mediu cu fișierul (JSON Lines) în care se adună cifrele sub `make validare`.
VARIABILA_FISIER = "CURS_FISIER_CIFRE"

#: Fișierul cu rezultatele de referință, relativ la rădăcina cursului.
FISIER_REFERINTA = Path("assets") / "referinta_h200" / "rezultate.json"


def _cu_grupe(text_intreg: str) -> str:
    """„4194304” → „4 194 304”: cifrele părții întregi, grupate câte trei, cu spațiu."""
    grupe = []
    while len(text_intreg) > 3:
        grupe.insert(0, text_intreg[-3:])
        text_intreg = text_intreg[:-3]
    return " ".join([text_intreg, *grupe])


def format_numar(valoare: float, zecimale: int | None = None) -> str:
    """Un număr scris ca în prosa cursului: virgulă zecimală, mii grupate cu spațiu, fără
    notație științifică: „4 239”, „3,8”, „0,125”, „0,000123”.

    Fără `zecimale`, numărul păstrează trei cifre semnificative (și niciuna după virgulă de la
    100 în sus), fără zerouri inutile la coadă. Cu `zecimale=n`, are exact n zecimale
    („2,50”)."""
    valoare = float(valoare)
    if math.isnan(valoare):
        return "nedefinit"
    if math.isinf(valoare):
        return "∞" if valoare > 0 else "-∞"
    automat = zecimale is None
    if automat:
        marime = abs(valoare)
        zecimale = 0 if marime >= 99.95 or marime == 0 else max(0, 2 - math.floor(math.log10(marime)))
    text = f"{abs(valoare):.{zecimale}f}"
    if automat and "." in text:
        text = text.rstrip("0").rstrip(".")
    intreg, _, fractie = text.partition(".")
    semn = "-" if valoare < 0 and text.strip("0.") else ""
    return semn + _cu_grupe(intreg) + (f",{fractie}" if fractie else "")


def format_procent(fractie: float, zecimale: int | None = None) -> str:
    """O fracție scrisă ca procent: 0.973 → „97%”, cu `zecimale=1` → „97,3%”. Fără `zecimale`,
    procentele de la 1% în sus sunt rotunjite la întreg, iar cele mai mici păstrează două cifre
    semnificative, ca să nu devină „0%”: 0.000117 → „0,012%”."""
    procent = 100 * fractie
    if zecimale is None:
        if abs(procent) >= 0.995 or procent == 0:
            zecimale = 0
        else:
            zecimale = max(0, 1 - math.floor(math.log10(abs(procent))))
    return f"{format_numar(procent, zecimale)}%"


def format_timp(secunde: float) -> str:
    """Un timp în unitatea potrivită, cu virgulă zecimală: „1,23 ms”, „112 ms”, „2,5 s”,
    „1 250 s” (niciodată „1e+03 µs”: valoarea rotunjită trece la unitatea următoare)."""
    for factor, unitate in ((1e6, "µs"), (1e3, "ms")):
        valoare = secunde * factor
        if abs(valoare) < 999.5:
            return f"{format_numar(valoare)} {unitate}"
    return f"{format_numar(secunde)} s"


def format_octeti(octeti: float) -> str:
    """O mărime în octeți, cu unitatea binară potrivită: „4 KiB”, „869 KiB”, „1,5 GiB”."""
    for unitate, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(octeti) >= factor:
            return f"{format_numar(octeti / factor)} {unitate}"
    return f"{format_numar(octeti)} B"


def cu_unitate(valoare: float, unitate: str, zecimale: int | None = None) -> str:
    """„4 226 GB/s”, „2,24 s”, dar „8,72×” (factorul se scrie lipit de număr). O unitate care e
    un cuvânt primește „de” unde îl cere româna: „2 048 de exemple”, „16 straturi”."""
    text = format_numar(valoare, zecimale)
    if unitate in ("×", "%"):
        return f"{text}{unitate}"
    if float(valoare) == 1 and unitate in SINGULARE:  # „1 kernel”, nu „1 kernel-uri”
        return f"{text} {SINGULARE[unitate]}"
    cuvant = unitate in SUBSTANTIVE_NUMARATE or (len(unitate) > 3 and unitate.replace("-", "").isalpha() and unitate.islower())
    if cuvant and are_nevoie_de_de(float(text.replace(" ", "").replace(",", "."))):
        return f"{text} de {unitate}"
    return f"{text} {unitate}"


#: Prefixele SI, de la cel mai mare la cel mai mic.
_PREFIXE = (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0))


def prefix_comun(valori) -> tuple[str, float]:
    """Prefixul SI (și factorul lui) la care toate `valori` (date în unitatea de bază) se scriu
    fără să se rotunjească la „0”: cel mai mare la care cea mai mică valoare nenulă e cel puțin 1.
    `prefix_comun([6.2e14, 3.4e13])` → `("T", 1e12)`; fără valori nenule, `("", 1.0)`."""
    pozitive = [abs(float(v)) for v in valori if v and v == v]
    if pozitive:
        for prefix, factor in _PREFIXE:
            if min(pozitive) >= factor * 0.9995:
                return prefix, factor
    return "", 1.0


def cu_prefix(valoare: float, unitate: str) -> str:
    """O valoare dată în unitatea de bază, scrisă cu prefixul potrivit, ca să nu devină „0”:
    `cu_prefix(3.2e9, "FLOP/s")` → „3,2 GFLOP/s”, `cu_prefix(5e5, "FLOP/s")` → „500 kFLOP/s”."""
    prefix, factor = prefix_comun([valoare])
    return f"{format_numar(valoare / factor)} {prefix}{unitate}"


def da_nu(valoare) -> str:
    """Un adevăr tipărit pentru cititor: „da” sau „nu” (nu True/False)."""
    return "da" if valoare else "nu"


def are_nevoie_de_de(numar: float) -> bool:
    """Dacă între numeral și substantiv intră „de”: 20–99 și ce se termină în 00 sau 20–99
    („20 de apelări”, „100 de kernel-uri”, „132 de SM”), dar nu „19 apelări”, „105 apelări”."""
    if not float(numar).is_integer():
        return False
    numar = int(abs(numar))
    rest = numar % 100
    return rest >= 20 or (rest == 0 and numar >= 100)


def cu_substantiv(numar: float, singular: str, plural: str) -> str:
    """Un număr urmat de substantiv, cu „de” unde îl cere româna: „1 apelare”, „19 apelări”,
    „20 de apelări”, „132 de multiprocesoare”, „4 194 304 elemente”."""
    if numar == 1:
        return f"1 {singular}"
    text = format_numar(numar)
    return f"{text} de {plural}" if are_nevoie_de_de(numar) else f"{text} {plural}"


#: Substantivele (la plural) pe care cursul le scrie după un număr; `probleme_de_format` verifică
#: acordul lor cu numeralul („20 de kernel-uri”, „1 kernel”).
SUBSTANTIVE_NUMARATE = (
    "kernel-uri", "apeluri", "apelări", "rulări", "operații", "straturi", "sinusuri", "grafuri",
    "recompilări", "runde", "exemple", "elemente", "secunde", "minute", "multiprocesoare", "SM",
    "programe", "blocuri", "configurații", "variante", "loturi", "noduri", "întreruperi", "gărzi",
    "ori", "pași", "iterații", "tokeni", "parametri", "lansări", "valori", "rânduri", "coloane",
)

#: Singularul unităților numărate, pentru valoarea 1.
SINGULARE = {
    "kernel-uri": "kernel", "apeluri": "apel", "rulări": "rulare", "operații": "operație", "straturi": "strat",
    "grafuri": "graf", "recompilări": "recompilare", "runde": "rundă", "exemple": "exemplu", "elemente": "element",
    "secunde": "secundă", "minute": "minut", "programe": "program", "blocuri": "bloc", "configurații": "configurație",
    "variante": "variantă", "loturi": "lot", "noduri": "nod", "întreruperi": "întrerupere", "gărzi": "gardă",
    "pași": "pas", "iterații": "iterație", "parametri": "parametru", "lansări": "lansare", "valori": "valoare",
    "rânduri": "rând", "coloane": "coloană", "jetoane": "jeton",
}

_UNITATI = r"(?:×|%|ns|µs|ms|s|min|[kMGTP]?B/s|[KMGT]iB|[kMGTP]?B|[kMGTP]?FLOP/s|[kMGTP]?FLOP|GHz|W)(?![\w/])"
_TIPARE_FORMAT = (
    (re.compile(r"(?<![\w.,])\d+\.\d+ ?" + _UNITATI), "punct zecimal (în română se scrie virgulă)"),
    (re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?[eE][+-]?\d+ ?" + _UNITATI), "notație științifică"),
    (re.compile(r"(?<![\w.,])\d{5,}(?:[.,]\d+)? ?" + _UNITATI), "mii negrupate (se scrie „12 345”)"),
    (re.compile(r"(?:\?|:) ?(?:True|False)\s*$", re.M), "True/False (se scrie da/nu)"),
)
_NUMERAL_SUBSTANTIV = re.compile(
    r"(?<![\w.,])(\d{1,3}(?: \d{3})+|\d+) (" + "|".join(map(re.escape, SUBSTANTIVE_NUMARATE)) + r")(?![\w-])"
)


def probleme_de_format(text: str) -> list[str]:
    """Fragmentele din `text` (ce a tipărit o celulă) scrise altfel decât cere cursul: punct
    zecimal sau notație științifică lângă o unitate, mii negrupate, True/False în loc de da/nu,
    un numeral fără „de” („32 kernel-uri”) sau „1” cu plural („1 kernel-uri”). Fiecare fragment
    vine cu explicația lui."""
    gasite = []
    for tipar, explicatie in _TIPARE_FORMAT:
        gasite += [f"„{p.group(0).strip()}”: {explicatie}" for p in tipar.finditer(text)]
    for potrivire in _NUMERAL_SUBSTANTIV.finditer(text):
        numar = int(potrivire.group(1).replace(" ", ""))
        inainte = text[max(0, potrivire.start() - 3):potrivire.start()]
        if numar == 1 and potrivire.group(2) != "ori":
            gasite.append(f"„{potrivire.group(0)}”: după 1 vine singularul")
        elif are_nevoie_de_de(numar) and not inainte.endswith("×"):
            gasite.append(f"„{potrivire.group(0)}”: lipsește „de” („{potrivire.group(1)} de {potrivire.group(2)}”)")
    return gasite


def descrie_cifra(cifra: dict) -> str:
    """O cifră înregistrată, scrisă pentru cititor: „4,2 ms (pe runde, între 4,1 ms și 4,4 ms;
    depinde și de procesor)”."""
    text = cu_unitate(cifra["valoare"], cifra["unitate"])  # „431 de apeluri”
    detalii = []
    interval = cifra.get("interval")
    if interval and interval[0] != interval[1]:
        detalii.append(f"pe runde, între {cu_unitate(interval[0], cifra['unitate'])} și {cu_unitate(interval[1], cifra['unitate'])}")
    if cifra.get("depinde_de_procesor"):
        detalii.append("depinde și de procesor")
    return f"{text} ({'; '.join(detalii)})" if detalii else text


def radacina_cursului() -> Path | None:
    """Dosarul cursului (cel cu `assets/`): din CURS_RADACINA, de lângă pachet, sau urcând
    din dosarul curent. None dacă nu-l găsește."""
    candidati = []
    if os.environ.get("CURS_RADACINA"):
        candidati.append(Path(os.environ["CURS_RADACINA"]))
    candidati.append(Path(__file__).resolve().parent.parent)
    aici = Path.cwd().resolve()
    candidati.extend([aici, *aici.parents])
    for dosar in candidati:
        if (dosar / "assets").is_dir() and (dosar / "notebooks").is_dir():
            return dosar
    return None


def inregistreaza(
    cheie: str,
    valoare,
    unitate: str,
    descriere: str,
    interval: tuple[float, float] | None = None,
    depinde_de_procesor: bool | None = None,
    prag_absolut: float | None = None,
) -> None:
    """Notează o cifră măsurată de capitol (sub `make validare` ajunge în raport).

    `cheie` are forma „capitol.nume” (de exemplu „00.plafon_copiere”). `valoare` e un număr sau
    un obiect care știe să se scrie ca cifră (`cifra_pentru_raport(unitate)`): un
    `masurare.Raport` (cu unitatea „×”) sau o `masurare.Masuratoare` (cu unitatea „s”, „ms” sau
    „µs”); pentru ele, intervalul (cea mai mică și cea mai mare dintre medianele rundelor) și
    dependența de procesor se iau din ele. `depinde_de_procesor` marchează o cifră care depinde
    și de procesorul mașinii, nu doar de GPU (un apel limitat de procesor, un timp de
    compilare). `prag_absolut` (în unitatea cifrei) se dă unei cifre care e o diferență ce poate
    fi aproape de zero, fără unitate procentuală (de exemplu diferența dintre două pierderi):
    `validare --compara` o compară atunci prin diferența absolută, cu acest prag,
    nu prin raport."""
    # O măsurătoare sau un raport își spun singure valoarea, intervalul și dependența de procesor
    # (`cifra_pentru_raport`): registrul nu trebuie să cunoască clasele măsurării.
    if hasattr(valoare, "cifra_pentru_raport"):
        valoare, interval_masurat, depinde = valoare.cifra_pentru_raport(unitate)
        interval = interval or interval_masurat
        if depinde_de_procesor is None:
            depinde_de_procesor = depinde
    fisier = os.environ.get(VARIABILA_FISIER)
    if fisier:
        inregistrare = {
            "cheie": cheie,
            "valoare": float(valoare),
            "unitate": unitate,
            "descriere": descriere,
            "interval": [float(interval[0]), float(interval[1])] if interval else None,
            "depinde_de_procesor": bool(depinde_de_procesor),
        }
        if prag_absolut is not None:
            inregistrare["prag_absolut"] = float(prag_absolut)
        with open(fisier, "a", encoding="utf-8") as f:
            f.write(json.dumps(inregistrare, ensure_ascii=False) + "\n")


def referinta() -> dict:
    """Rezultatele de referință (dicționarul din `assets/referinta_h200/rezultate.json`),
    sau {} dacă fișierul nu se găsește."""
    radacina = radacina_cursului()
    if radacina is None or not (radacina / FISIER_REFERINTA).is_file():
        return {}
    return json.loads((radacina / FISIER_REFERINTA).read_text(encoding="utf-8"))


def afiseaza_referinta(prefix: str = "") -> dict:
    """Afișează cifrele de referință ale căror chei încep cu `prefix` și le întoarce. O cifră
    măsurată de un script, nu de notebook-ul capitolului (adăugată cu `validare --adauga-cifre`),
    apare cu scriptul care a măsurat-o."""
    date = referinta()
    if not date:
        print("Nu am găsit cifrele de referință ale cursului (assets/referinta_h200/).")
        return {}
    cifre = {c["cheie"]: c for c in date.get("cifre", []) if c["cheie"].startswith(prefix)}
    mediu = date.get("mediu", {})
    if not cifre:
        print(f"Referința cursului (măsurată pe {mediu.get('gpu', 'GPU-ul de referință')}) nu are încă cifre "
              f"pentru „{prefix}”.")
        return cifre
    print(
        f"Cifre de referință măsurate pe {mediu.get('gpu', 'GPU-ul de referință')} "
        f"(torch {mediu.get('torch', '?')}) — NU pe mașina ta:"
    )
    for c in cifre.values():
        sursa = f" [măsurată separat, cu {c['sursa']}]" if c.get("sursa") else ""
        print(f"  {c['descriere']}: {descrie_cifra(c)}{sursa}")
    return cifre


def cifra_referinta(cheie: str) -> dict | None:
    """Cifra de referință cu cheia `cheie` (un dicționar ca în `rezultate.json`, cu GPU-ul pe
    care a fost măsurată în câmpul `gpu`), sau None dacă referința n-o are. Pentru o propoziție
    care pune o cifră de pe mașina ta lângă cea de referință."""
    date = referinta()
    for c in date.get("cifre", []):
        if c["cheie"] == cheie:
            return {**c, "gpu": date.get("mediu", {}).get("gpu", "GPU-ul de referință")}
    return None


def are_referinta(*prefixe: str) -> bool:
    """Dacă referința cursului are cel puțin o cifră pentru fiecare dintre `prefixe` (începuturi de
    chei, de exemplu „10.inapoi”)."""
    chei = [c["cheie"] for c in referinta().get("cifre", [])]
    return all(any(cheie.startswith(prefix) for cheie in chei) for prefix in prefixe)


def despre_referinta(ce: str, *prefixe: str) -> str:
    """O propoziție despre cifrele de referință pentru `ce` (cheile care încep cu `prefixe`), scrisă
    după ce are referința: că le găsești acolo, sau că nu există încă. Un capitol nu promite o cifră pe
    care referința n-o are; textul îl scrie codul, nu celula markdown."""
    date = referinta()
    gpu = date.get("mediu", {}).get("gpu", "GPU-ul de referință")
    if date and are_referinta(*prefixe):
        return f"Referința cursului (măsurată pe un {gpu}) are cifrele pentru: {ce}."
    return f"Referința cursului nu are încă cifrele pentru: {ce}; vor fi măsurate pe un {gpu}."
