"""Cât rulează fiecare notebook („Run All”), după validările de referință ale cursului.

Duratele vin din rapoartele din `assets/` (`make validare` pe un H200 și pe un procesor, în
profilul complet), nu sunt scrise de mână: de aici se generează rândul „Cât
rulează” din prima celulă a fiecărui capitol și tabelul duratelor din README. După ce refaci o
referință, rulează `make durate`; testele verifică că totul e la zi.

    python -m curs_compilare.instructor.durate            # rescrie prima celulă a capitolelor și README-ul
    python -m curs_compilare.instructor.durate --verifica # doar verifică (cod de ieșire 1 dacă nu e la zi)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat

from ..cifre import cu_substantiv, format_timp

#: Rapoartele de referință din care se iau duratele, cu mașina lor.
REFERINTE = {
    "gpu": Path("assets") / "referinta_h200" / "rezultate.json",
    "procesor": Path("assets") / "referinta_cpu" / "rezultate.json",
}

#: Începutul rândului din prima celulă a fiecărui capitol, după care îl recunoaștem.
MARCAJ_RAND = "**Cât rulează"

#: Rândul de după care se pune, în prima celulă, rândul duratelor.
MARCAJ_DUPA = "**Durată estimată:**"

#: Marcajele dintre care stă, în README, tabelul duratelor.
INCEPUT_TABEL = "<!-- durate: generat de `make durate` -->"
SFARSIT_TABEL = "<!-- /durate -->"


def citeste_referintele(radacina: Path) -> dict[str, dict]:
    """Rapoartele de referință care există, după cheile din `REFERINTE`."""
    return {
        nume: json.loads((radacina / cale).read_text(encoding="utf-8"))
        for nume, cale in REFERINTE.items()
        if (radacina / cale).is_file()
    }


def durata(referinta: dict, cale_notebook: str) -> float | None:
    """Secundele în care a trecut notebook-ul în raportul `referinta`, sau None."""
    for r in referinta.get("notebookuri", []):
        if r["cale"] == cale_notebook and r["trecut"]:
            return float(r["secunde"])
    return None


def text_durata(secunde: float) -> str:
    """O durată, scrisă la fel în prima celulă a capitolului și în tabelul din README („46,7 s”,
    „310 s”): aceeași cifră din raport, cu aceeași rotunjire, în ambele locuri."""
    return format_timp(secunde)


def _masina_gpu(referinta: dict) -> str:
    return f"un {referinta.get('mediu', {}).get('gpu', 'GPU')}"


def _masina_procesor(referinta: dict) -> str:
    nuclee = referinta.get("mediu", {}).get("nuclee")
    return f"un procesor cu {cu_substantiv(nuclee, 'nucleu', 'nuclee')}" if nuclee else "un procesor"


def rand_durate(cale_notebook: str, referinte: dict[str, dict]) -> str | None:
    """Rândul „Cât rulează” al unui capitol, sau None dacă nicio referință nu-l are."""
    parti = []
    if "gpu" in referinte and (s := durata(referinte["gpu"], cale_notebook)) is not None:
        parti.append(f"pe {_masina_gpu(referinte['gpu'])}, {text_durata(s)}")
    if "procesor" in referinte and (s := durata(referinte["procesor"], cale_notebook)) is not None:
        parti.append(f"pe {_masina_procesor(referinte['procesor'])}, fără GPU, {text_durata(s)}")
    if not parti:
        return None
    return f"{MARCAJ_RAND} „Run All”:** {'; '.join(parti)} (validările de referință ale cursului)  "


def prima_celula_la_zi(sursa: str, rand: str | None) -> str:
    """Prima celulă a unui capitol, cu rândul duratelor pus (sau înlocuit) după „Durată estimată”."""
    linii = [l for l in sursa.split("\n") if not l.startswith(MARCAJ_RAND)]
    if rand is None:
        return "\n".join(linii)
    for i, linie in enumerate(linii):
        if linie.startswith(MARCAJ_DUPA):
            return "\n".join(linii[: i + 1] + [rand] + linii[i + 1:])
    raise ValueError(f"prima celulă nu are rândul „{MARCAJ_DUPA}”, după care vine durata")


def tabel_readme(radacina: Path, referinte: dict[str, dict]) -> str:
    """Tabelul duratelor pentru README, cu marcajele lui."""
    coloane = [("gpu", "pe " + _masina_gpu(referinte["gpu"]) if "gpu" in referinte else ""),
               ("procesor", "pe " + _masina_procesor(referinte["procesor"]) + ", fără GPU" if "procesor" in referinte else "")]
    coloane = [(nume, titlu) for nume, titlu in coloane if nume in referinte]
    randuri = [INCEPUT_TABEL, "", "| capitol | " + " | ".join(t for _, t in coloane) + " |",
               "|---|" + "---|" * len(coloane)]
    for cale in sorted((radacina / "notebooks").glob("*.ipynb")):
        relativ = cale.relative_to(radacina).as_posix()
        valori = [durata(referinte[nume], relativ) for nume, _ in coloane]
        randuri.append(f"| `{cale.name}` | " + " | ".join("—" if v is None else text_durata(v) for v in valori) + " |")
    randuri += ["", SFARSIT_TABEL]
    return "\n".join(randuri)


def sincronizeaza(radacina: Path, doar_verifica: bool = False) -> list[str]:
    """Pune la zi rândul duratelor din prima celulă a fiecărui capitol și tabelul din README.
    Întoarce fișierele care nu erau la zi (cu `doar_verifica=True`, nu scrie nimic)."""
    referinte = citeste_referintele(radacina)
    de_schimbat = []
    for cale in sorted((radacina / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(cale, as_version=4)
        nou = prima_celula_la_zi(nb.cells[0].source, rand_durate(cale.relative_to(radacina).as_posix(), referinte))
        if nou != nb.cells[0].source:
            de_schimbat.append(cale.relative_to(radacina).as_posix())
            if not doar_verifica:
                nb.cells[0].source = nou
                nbformat.write(nb, cale)
    readme = radacina / "README.md"
    text = readme.read_text(encoding="utf-8")
    if INCEPUT_TABEL in text and SFARSIT_TABEL in text:
        inainte, rest = text.split(INCEPUT_TABEL, 1)
        dupa = rest.split(SFARSIT_TABEL, 1)[1]
        nou = inainte + tabel_readme(radacina, referinte) + dupa
    else:
        nou = None
    if nou is None or nou != text:
        de_schimbat.append("README.md")
        if nou is not None and not doar_verifica:
            readme.write_text(nou, encoding="utf-8")
    return de_schimbat


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Duratele notebook-urilor, din referințele cursului.")
    parser.add_argument("--verifica", action="store_true", help="doar verifică, fără să scrie")
    argumente = parser.parse_args(argv)
    radacina = Path(__file__).resolve().parents[2]
    schimbate = sincronizeaza(radacina, doar_verifica=argumente.verifica)
    if argumente.verifica:
        if schimbate:
            print("Nu sunt la zi (rulează `make durate`): " + ", ".join(schimbate))
            return 1
        print("Duratele sunt la zi.")
        return 0
    print("Am pus la zi: " + (", ".join(schimbate) if schimbate else "nimic, totul era la zi"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
