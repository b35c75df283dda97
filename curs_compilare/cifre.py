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
import os
from pathlib import Path

__all__ = [
    "inregistreaza",
    "referinta",
    "afiseaza_referinta",
    "radacina_cursului",
    "format_numar",
    "format_timp",
    "cu_substantiv",
    "cu_unitate",
    "descrie_cifra",
    "VARIABILA_FISIER",
]

#: Variabila de mediu cu fișierul (JSON Lines) în care se adună cifrele sub `make validare`.
VARIABILA_FISIER = "CURS_FISIER_CIFRE"

#: Fișierul cu rezultatele de referință, relativ la rădăcina cursului.
FISIER_REFERINTA = Path("assets") / "referinta_h200" / "rezultate.json"


def format_numar(valoare: float) -> str:
    """Un număr scris ca în prosa cursului: „4 239”, „3,8”, „0,125”."""
    if abs(valoare) >= 100:
        return f"{valoare:,.0f}".replace(",", " ")
    return f"{valoare:.3g}".replace(".", ",")


def format_timp(secunde: float) -> str:
    """Un timp în unitatea potrivită, cu virgulă zecimală: „1,23 ms”, „112 ms”, „2,5 s”."""
    if secunde >= 1:
        valoare, unitate = secunde, "s"
    elif secunde >= 1e-3:
        valoare, unitate = secunde * 1e3, "ms"
    else:
        valoare, unitate = secunde * 1e6, "µs"
    return f"{valoare:.3g} {unitate}".replace(".", ",")


def cu_unitate(valoare: float, unitate: str) -> str:
    """„4 226 GB/s”, „2,24 s”, dar „8,72×” (factorul se scrie lipit de număr)."""
    return f"{format_numar(valoare)}{'' if unitate == '×' else ' '}{unitate}"


def cu_substantiv(numar: float, singular: str, plural: str) -> str:
    """Un număr urmat de substantiv, cu „de” unde îl cere româna: „1 apelare”, „19 apelări”,
    „20 de apelări”, „132 de multiprocesoare”, „4 194 304 elemente”."""
    if numar == 1:
        return f"1 {singular}"
    text = format_numar(numar)
    if float(numar).is_integer():
        rest = int(abs(numar)) % 100
        if rest >= 20 or (rest == 0 and abs(numar) >= 100):
            return f"{text} de {plural}"
        return f"{text} {plural}"
    return f"{text} {plural}"  # numerele cu zecimale: „2,5 secunde”


def descrie_cifra(cifra: dict) -> str:
    """O cifră înregistrată, scrisă pentru cititor: „4,2 ms (pe runde, între 4,1 ms și 4,4 ms;
    depinde și de procesor)”."""
    text = cu_unitate(cifra["valoare"], cifra["unitate"])
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
) -> None:
    """Notează o cifră măsurată de capitol (sub `make validare` ajunge în raport).

    `cheie` are forma „capitol.nume” (de exemplu „00.plafon_copiere”). `valoare` e un număr,
    un `masurare.Raport` (cu unitatea „×”) sau o `masurare.Masuratoare` (cu unitatea „s”, „ms”
    sau „µs”); pentru ultimele două, intervalul (cea mai mică și cea mai mare dintre medianele
    rundelor) și dependența de procesor se iau din ele. `depinde_de_procesor` marchează o cifră
    care depinde și de procesorul mașinii, nu doar de GPU (un apel limitat de procesor, un timp
    de compilare)."""
    from .masurare import Masuratoare, Raport

    if isinstance(valoare, Raport):
        interval = interval or (valoare.minim, valoare.maxim)
        if depinde_de_procesor is None:
            depinde_de_procesor = valoare.depinde_de_procesor
        valoare = valoare.mediana
    elif isinstance(valoare, Masuratoare):
        factor = {"s": 1.0, "ms": 1e3, "µs": 1e6}[unitate]
        interval = interval or (valoare.minim_runde_s * factor, valoare.maxim_runde_s * factor)
        if depinde_de_procesor is None:
            depinde_de_procesor = valoare.depinde_de_procesor
        valoare = valoare.mediana_s * factor
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
    """Afișează cifrele de referință ale căror chei încep cu `prefix` și le întoarce."""
    date = referinta()
    if not date:
        print("Nu am găsit cifrele de referință ale cursului (assets/referinta_h200/).")
        return {}
    cifre = {c["cheie"]: c for c in date.get("cifre", []) if c["cheie"].startswith(prefix)}
    mediu = date.get("mediu", {})
    print(
        f"Cifre de referință măsurate pe {mediu.get('gpu', 'GPU-ul de referință')} "
        f"(torch {mediu.get('torch', '?')}) — NU pe mașina ta:"
    )
    for c in cifre.values():
        print(f"  {c['descriere']}: {descrie_cifra(c)}")
    if not cifre:
        print(f"  (încă nu există cifre de referință pentru „{prefix}”)")
    return cifre
