"""Verificarea rapidă a unei mașini înaintea orei de curs (`make verifica`).

Execută fiecare notebook din `notebooks/` (și, cu `--solutii`, pe cele din `solutions/`) în
profilul de dimensiuni „rapid” (`CURS_PROFIL=rapid`: dimensiuni mici), fiecare cu o limită de
timp, apoi tipărește un tabel (notebook, stare, secunde, primul rând al erorii) și descrierea
mașinii. Comanda se termină cu cod de eroare dacă vreun notebook a eșuat.

    python -m curs_compilare.verificare_rapida [--solutii] [--limita-notebook 300]
                                               [--iesire build/verificare] [NOTEBOOK ...]

Pe Colab, după celula de pregătire a oricărui capitol, într-o celulă nouă:

    from curs_compilare.verificare_rapida import verifica
    verifica()

Verificarea spune doar dacă mașina poate rula cursul (bibliotecile, compilatorul, GPU-ul); cifrele
le măsoară validarea completă (`make validare`, la dimensiunile complete). Notebook-urile se
execută cu aceeași funcție ca la validare (`validare.executa_notebook`); cele executate, cu
ieșirile lor, rămân în `build/verificare/executate/`. Cu `CURS_GPU_SIMULAT=T4`, fiecare notebook
rulează pe T4-ul simulat (vezi `mediu`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .cifre import cu_substantiv, format_numar, radacina_cursului
from .mediu import VARIABILA_PROFIL, detecteaza_mediul
from .validare import executa_notebook, notebookuri_cursului

#: Limita implicită a unui notebook, în secunde (în profilul rapid, un capitol durează de obicei
#: sub un minut, iar pe un H200 capitolul 05, cel mai lung, a cerut 2,5 minute: reglarea automată
#: și procesele noi ale cache-ului nu se micșorează cu dimensiunile; limita prinde un notebook
#: blocat fără să oprească verificarea).
LIMITA_NOTEBOOK_S = 300

#: Cât din primul rând al unei erori intră în tabel.
LUNGIME_EROARE = 110


@dataclass
class Verificare:
    """Rezultatul verificării: câte un rând pe notebook (`notebook`, `trecut`, `secunde`,
    `eroare`: primul rând al erorii sau None), descrierea mașinii și durata totală."""

    randuri: list[dict]
    mediu: str = ""
    secunde_total: float = 0.0
    profil: str = "rapid"
    dosar_executate: str = "build/verificare/executate"

    @property
    def trecute(self) -> int:
        return sum(r["trecut"] for r in self.randuri)

    @property
    def esuate(self) -> int:
        return len(self.randuri) - self.trecute

    @property
    def cod_iesire(self) -> int:
        """0 dacă toate notebook-urile au trecut (și a fost măcar unul), altfel 1."""
        return 0 if self.randuri and self.esuate == 0 else 1

    def tabel(self) -> str:
        """Tabelul în română: notebook, stare, secunde, primul rând al erorii."""
        cap = ("notebook", "stare", "secunde", "primul rând al erorii")
        linii = [
            (
                r["notebook"],
                "trecut" if r["trecut"] else "EȘUAT",
                format_numar(r["secunde"], 1),
                "" if r["trecut"] else _scurtat(r.get("eroare") or "(fără mesaj)"),
            )
            for r in self.randuri
        ]
        latimi = [max(len(rand[i]) for rand in [cap, *linii]) for i in range(3)]

        def scrie(rand):
            return (f"{rand[0]:<{latimi[0]}}  {rand[1]:<{latimi[1]}}  {rand[2]:>{latimi[2]}}  {rand[3]}").rstrip()

        return "\n".join([scrie(cap), scrie(tuple("-" * n for n in latimi) + ("-" * len(cap[3]),)), *map(scrie, linii)])

    def concluzie(self) -> str:
        total = cu_substantiv(len(self.randuri), "notebook", "notebook-uri")
        durata = f"{format_numar(self.secunde_total, 0)} s"
        if not self.randuri:
            return "Niciun notebook de verificat."
        if self.esuate == 0:
            trecute = "notebook-ul a trecut" if len(self.randuri) == 1 else f"toate cele {total} au trecut"
            return f"Mașina e gata: {trecute}, în profilul {self.profil} ({durata})."
        verb = "A eșuat" if self.esuate == 1 else "Au eșuat"
        return (
            f"{verb} {self.esuate} din {total} (profilul {self.profil}, {durata}). Notebook-urile executate, "
            f"cu erorile întregi, sunt în {self.dosar_executate}."
        )

    def text(self) -> str:
        """Tot raportul: tabelul, concluzia și descrierea mașinii."""
        parti = [self.tabel(), "", self.concluzie()]
        if self.mediu:
            parti += ["", "Mașina:", self.mediu]
        return "\n".join(parti)

    def __repr__(self) -> str:
        return f"Verificare: {self.trecute} trecute, {self.esuate} eșuate (cod de ieșire {self.cod_iesire})"


def _scurtat(text: str) -> str:
    rand = text.strip().splitlines()[0] if text.strip() else ""
    return rand if len(rand) <= LUNGIME_EROARE else rand[: LUNGIME_EROARE - 1] + "…"


def _nume_afisat(cale: Path, radacina: Path | None) -> str:
    if radacina is not None:
        try:
            return cale.resolve().relative_to(radacina.resolve()).as_posix()
        except ValueError:
            pass
    return cale.as_posix()


def verifica(
    notebookuri=None,
    solutii: bool = False,
    limita_notebook: float = LIMITA_NOTEBOOK_S,
    iesire: str | Path | None = None,
    afiseaza: bool = True,
) -> Verificare:
    """Verifică mașina: execută notebook-urile cursului în profilul rapid, fiecare cu cel mult
    `limita_notebook` secunde, și întoarce rezultatul (`Verificare`); cu `afiseaza=True`
    (implicit) tipărește pe parcurs câte un rând pe notebook, apoi tabelul și descrierea mașinii.

    Fără `notebookuri`, le ia pe toate din `notebooks/` (și din `solutions/`, cu `solutii=True`),
    din dosarul cursului (`cifre.radacina_cursului`). Notebook-urile executate ajung în
    `iesire/executate/` (implicit `build/verificare/` din dosarul cursului)."""
    radacina = radacina_cursului()
    if notebookuri is None:
        if radacina is None:
            raise FileNotFoundError(
                "Nu găsesc dosarul cursului (cel cu notebooks/ și assets/). Rulează din dosarul cursului "
                "sau setează CURS_RADACINA (pe Colab, rulează întâi celula de pregătire a unui capitol)."
            )
        cai = notebookuri_cursului(radacina, solutii)
    else:
        cai = [Path(c) for c in notebookuri]
    iesire = Path(iesire) if iesire is not None else (radacina or Path.cwd()) / "build" / "verificare"

    def spune(text: str) -> None:
        if afiseaza:
            print(text, flush=True)

    profil_vechi = os.environ.get(VARIABILA_PROFIL)
    os.environ[VARIABILA_PROFIL] = "rapid"  # kernel-urile notebook-urilor moștenesc variabila
    randuri = []
    start = time.perf_counter()
    try:
        spune(
            f"Verific {cu_substantiv(len(cai), 'notebook', 'notebook-uri')} în profilul rapid, "
            f"cel mult {format_numar(limita_notebook, 0)} s fiecare."
        )
        for cale in cai:
            r = executa_notebook(cale, iesire / "executate", limita_celula=int(limita_notebook),
                                 limita_notebook=limita_notebook)
            rand = {
                "notebook": _nume_afisat(cale, radacina),
                "trecut": bool(r["trecut"]),
                "secunde": float(r["secunde"]),
                "eroare": None if r["trecut"] else (r.get("prima_linie_eroare") or _scurtat(r.get("eroare") or "")),
            }
            randuri.append(rand)
            spune(f"  {'trecut' if rand['trecut'] else 'EȘUAT '}  {format_numar(rand['secunde'], 1):>7} s  {rand['notebook']}")
        secunde_total = time.perf_counter() - start
        # Mașina, descrisă abia la sfârșit: procesul acesta nu ține ocupată memoria GPU-ului cât
        # rulează notebook-urile.
        try:
            descriere = detecteaza_mediul().rezumat()
        except Exception as e:  # descrierea nu trebuie să strice raportul
            descriere = f"(nu am putut descrie mașina: {type(e).__name__}: {e})"
    finally:
        if profil_vechi is None:
            os.environ.pop(VARIABILA_PROFIL, None)
        else:
            os.environ[VARIABILA_PROFIL] = profil_vechi
    rezultat = Verificare(randuri=randuri, mediu=descriere, secunde_total=secunde_total,
                          dosar_executate=str(iesire / "executate"))
    spune("")
    spune(rezultat.text())
    return rezultat


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Verificarea rapidă a mașinii: execută notebook-urile în profilul rapid și tipărește un tabel."
    )
    parser.add_argument("notebookuri", nargs="*", help="implicit: notebooks/*.ipynb (și solutions/*.ipynb, cu --solutii)")
    parser.add_argument("--solutii", action="store_true", help="execută și notebook-urile din solutions/")
    parser.add_argument("--limita-notebook", type=float, default=LIMITA_NOTEBOOK_S,
                        help=f"secunde, cel mult, pentru un notebook (implicit {LIMITA_NOTEBOOK_S})")
    parser.add_argument("--iesire", help="dosarul notebook-urilor executate (implicit build/verificare)")
    argumente = parser.parse_args(argv)
    try:
        rezultat = verifica(argumente.notebookuri or None, solutii=argumente.solutii,
                            limita_notebook=argumente.limita_notebook, iesire=argumente.iesire)
    except FileNotFoundError as e:
        print(f"Eroare: {e}", file=sys.stderr)
        return 2
    return rezultat.cod_iesire


if __name__ == "__main__":
    sys.exit(main())
