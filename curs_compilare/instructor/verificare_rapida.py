"""Verificarea rapidă a unei mașini înaintea orei de curs (`make verifica`).

Execută fiecare notebook din `notebooks/` (și, cu `--solutii`, pe cele din `solutions/`) în
profilul de dimensiuni „rapid” (`CURS_PROFIL=rapid`: dimensiuni mici), fiecare cu o limită de
timp, apoi tipărește un tabel (notebook, stare, secunde, memoria GPU maximă, primul rând al
erorii) și descrierea mașinii. Comanda se termină cu cod de eroare dacă vreun notebook a eșuat.

    python -m curs_compilare.instructor.verificare_rapida [--solutii] [--limita-notebook 300] [--paralel N]
                                               [--iesire build/verificare] [NOTEBOOK ...]

Pe o mașină cu multe nuclee, notebook-urile rulează câte mai multe deodată, fiecare în kernel-ul
lui (`paralel_implicit`: unul la fiecare 4 nuclee, dacă memoria ajunge, cel mult 4); pe Colab
(2 nuclee) sau pe un laptop, unul după altul. Verificarea nu măsoară nimic, deci suprapunerea nu
strică nimic; doar secundele din tabel se pot lungi, fiindcă notebook-urile își împart mașina.

Pe Colab, după celula de pregătire a oricărui capitol, într-o celulă nouă:

    from curs_compilare.instructor.verificare_rapida import verifica
    verifica()

Verificarea spune doar dacă mașina poate rula cursul (bibliotecile, compilatorul, GPU-ul); cifrele
le măsoară validarea completă (`make validare`, la dimensiunile complete). Notebook-urile se
execută cu aceeași funcție ca la validare (`validare.executa_notebook`); cele executate, cu
ieșirile lor, rămân în `build/verificare/executate/`. Cu `CURS_GPU_SIMULAT=T4`, fiecare notebook
rulează pe T4-ul simulat (vezi `mediu`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ..cifre import cu_substantiv, format_numar, radacina_cursului
from ..mediu import VARIABILA_PROFIL, detecteaza_mediul
from .validare import MEMORIE_PE_PROCESE, executa_notebook, notebookuri_cursului, nvidia_smi

#: Limita implicită a unui notebook, în secunde (în profilul rapid, pe un H200, un capitol durează
#: de obicei sub un minut, iar capitolul 05, cel mai lung, a cerut 2 minute: reglarea automată și
#: procesele noi ale cache-ului nu se micșorează cu dimensiunile; limita prinde un notebook blocat
#: fără să oprească verificarea).
LIMITA_NOTEBOOK_S = 300

#: Cel mult atâtea notebook-uri rulează deodată, implicit (`paralel_implicit`).
PARALEL_MAXIM = 4

#: Câte nuclee, câți GiB de memorie și câți GiB de memorie GPU cere, implicit, fiecare notebook
#: care rulează în paralel cu altele (compilarea lui Inductor folosește mai multe nuclee).
NUCLEE_PE_NOTEBOOK = 4
MEMORIE_PE_NOTEBOOK_GIB = 12

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
    paralel: int = 1

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
        """Tabelul în română: notebook, stare, secunde, memoria GPU maximă (doar dacă s-a putut
        măsura pentru vreun notebook) și primul rând al erorii."""
        cu_memorie = any(r.get("memorie_gpu_gib") is not None for r in self.randuri)
        cap = ("notebook", "stare", "secunde", *(["GPU GiB"] if cu_memorie else []), "primul rând al erorii")
        linii = []
        for r in self.randuri:
            memorie = r.get("memorie_gpu_gib")
            linii.append((
                r["notebook"],
                "trecut" if r["trecut"] else "EȘUAT",
                format_numar(r["secunde"], 1),
                *([("—" if memorie is None else format_numar(memorie, 2))] if cu_memorie else []),
                "" if r["trecut"] else _scurtat(r.get("eroare") or "(fără mesaj)"),
            ))
        coloane = len(cap) - 1  # ultima coloană (eroarea) nu se aliniază
        latimi = [max(len(rand[i]) for rand in [cap, *linii]) for i in range(coloane)]

        def scrie(rand):
            celule = [f"{rand[i]:<{latimi[i]}}" if i < 2 else f"{rand[i]:>{latimi[i]}}" for i in range(coloane)]
            return "  ".join([*celule, rand[-1]]).rstrip()

        return "\n".join([scrie(cap), scrie(tuple("-" * n for n in latimi) + ("-" * len(cap[-1]),)), *map(scrie, linii)])

    def concluzie(self) -> str:
        total = cu_substantiv(len(self.randuri), "notebook", "notebook-uri")
        durata = f"{format_numar(self.secunde_total, 0)} s"
        if not self.randuri:
            return "Niciun notebook de verificat."
        if self.paralel > 1 and len(self.randuri) > 1:
            durata += f", câte {self.paralel} deodată"
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


def _memorie_gib() -> float | None:
    """Memoria mașinii, în GiB (None dacă nu se poate afla)."""
    try:
        import psutil

        return psutil.virtual_memory().total / 2**30
    except Exception:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (AttributeError, OSError, ValueError):
        return None


def _memorie_gpu_gib() -> float | None:
    """Memoria primului GPU NVIDIA, în GiB, citită cu `nvidia-smi` (procesul acesta nu pornește
    CUDA, ca să nu țină memorie ocupată cât rulează notebook-urile); None fără `nvidia-smi`."""
    randuri = nvidia_smi("--query-gpu=memory.total", "-i", "0")
    try:
        return float(randuri[0]) / 1024 if randuri else None
    except ValueError:
        return None


def paralel_implicit(nuclee: int | None = None, memorie_gib: float | None = None,
                     memorie_gpu_gib: float | None = None, are_gpu: bool | None = None) -> int:
    """Câte notebook-uri să ruleze deodată pe mașina aceasta: unul la fiecare `NUCLEE_PE_NOTEBOOK`
    nuclee și la fiecare `MEMORIE_PE_NOTEBOOK_GIB` GiB de memorie (și de memorie GPU, pe un GPU),
    cel mult `PARALEL_MAXIM`, cel puțin 1. Argumentele lipsă se citesc de pe mașină. Pe Colab
    (2 nuclee) și pe un laptop obișnuit iese 1; pe o stație cu 16 nuclee și un GPU mare, 4.
    Un GPU a cărui memorie nu se poate citi (fără `nvidia-smi`) duce la 1."""
    if nuclee is None:  # nucleele pe care le poate folosi procesul (într-un container, mai puține)
        nuclee = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    memorie_gib = _memorie_gib() if memorie_gib is None else memorie_gib
    if memorie_gpu_gib is None:
        memorie_gpu_gib = _memorie_gpu_gib()
    if are_gpu is None:
        are_gpu = memorie_gpu_gib is not None
        if not are_gpu:
            import torch

            are_gpu = torch.cuda.is_available()
    limite = [PARALEL_MAXIM, nuclee // NUCLEE_PE_NOTEBOOK]
    if memorie_gib is not None:
        limite.append(int(memorie_gib // MEMORIE_PE_NOTEBOOK_GIB))
    if are_gpu:
        limite.append(int(memorie_gpu_gib // MEMORIE_PE_NOTEBOOK_GIB) if memorie_gpu_gib is not None else 1)
    return max(1, min(limite))


def _executa_toate(cai, dosar_executate: Path, limita_notebook: float, paralel: int, la_fiecare) -> None:
    """Execută notebook-urile (`validare.executa_notebook`) și cheamă `la_fiecare(indice, rezultat)`
    pe măsură ce se termină: unul după altul, sau câte `paralel` deodată, fiecare într-un proces
    al lui (executorul schimbă variabile de mediu pe care le moștenește kernel-ul)."""
    argumente = dict(limita_celula=int(limita_notebook), limita_notebook=limita_notebook)
    if paralel <= 1 or len(cai) <= 1:
        for i, cale in enumerate(cai):
            la_fiecare(i, executa_notebook(cale, dosar_executate, **argumente))
        return
    with ProcessPoolExecutor(max_workers=min(paralel, len(cai)), mp_context=multiprocessing.get_context("spawn")) as bazin:
        viitoare = {bazin.submit(executa_notebook, cale, dosar_executate, **argumente): i for i, cale in enumerate(cai)}
        for viitor in as_completed(viitoare):
            try:
                rezultat = viitor.result()
            except Exception as e:  # procesul care executa notebook-ul a căzut: un rând eșuat, nu o excepție
                rezultat = {"trecut": False, "secunde": 0.0, "eroare": f"{type(e).__name__}: {e}",
                            "prima_linie_eroare": f"procesul care executa notebook-ul a căzut: {type(e).__name__}: {e}"}
            la_fiecare(viitoare[viitor], rezultat)


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
    paralel: int | None = None,
) -> Verificare:
    """Verifică mașina: execută notebook-urile cursului în profilul rapid, fiecare cu cel mult
    `limita_notebook` secunde, și întoarce rezultatul (`Verificare`); cu `afiseaza=True`
    (implicit) tipărește pe parcurs câte un rând pe notebook, apoi tabelul și descrierea mașinii.

    Fără `notebookuri`, le ia pe toate din `notebooks/` (și din `solutions/`, cu `solutii=True`),
    din dosarul cursului (`cifre.radacina_cursului`). Notebook-urile executate ajung în
    `iesire/executate/` (implicit `build/verificare/` din dosarul cursului). `paralel` spune câte
    notebook-uri rulează deodată (implicit `paralel_implicit()`; 1: unul după altul)."""
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

    if paralel is None:
        paralel = paralel_implicit()
    paralel = max(1, int(paralel))
    profil_vechi = os.environ.get(VARIABILA_PROFIL)
    os.environ[VARIABILA_PROFIL] = "rapid"  # kernel-urile notebook-urilor moștenesc variabila
    start = time.perf_counter()
    try:
        deodata = f", câte {paralel} deodată" if paralel > 1 and len(cai) > 1 else ""
        spune(
            f"Verific {cu_substantiv(len(cai), 'notebook', 'notebook-uri')} în profilul rapid, "
            f"cel mult {format_numar(limita_notebook, 0)} s fiecare{deodata}."
        )
        randuri = [None] * len(cai)

        def la_fiecare(i, r):
            memorie = r.get("memorie_gpu_maxima_mib")
            if paralel > 1 and r.get("memorie_gpu_masurata_pe") != MEMORIE_PE_PROCESE:
                memorie = None  # pe tot GPU-ul, cu alte notebook-uri deodată: nu e doar a lui
            rand = {
                "notebook": _nume_afisat(cai[i], radacina),
                "trecut": bool(r["trecut"]),
                "secunde": float(r["secunde"]),
                "eroare": None if r["trecut"] else (r.get("prima_linie_eroare") or _scurtat(r.get("eroare") or "")),
                "memorie_gpu_gib": None if memorie is None else memorie / 1024,
            }
            randuri[i] = rand
            spune(f"  {'trecut' if rand['trecut'] else 'EȘUAT '}  {format_numar(rand['secunde'], 1):>7} s  {rand['notebook']}")

        _executa_toate(cai, iesire / "executate", limita_notebook, paralel, la_fiecare)
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
                          dosar_executate=str(iesire / "executate"), paralel=paralel)
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
    parser.add_argument("--paralel", type=int, default=None,
                        help="câte notebook-uri rulează deodată (implicit după nucleele și memoria mașinii; 1: unul după altul)")
    parser.add_argument("--iesire", help="dosarul notebook-urilor executate (implicit build/verificare)")
    argumente = parser.parse_args(argv)
    try:
        rezultat = verifica(argumente.notebookuri or None, solutii=argumente.solutii,
                            limita_notebook=argumente.limita_notebook, iesire=argumente.iesire,
                            paralel=argumente.paralel)
    except FileNotFoundError as e:
        print(f"Eroare: {e}", file=sys.stderr)
        return 2
    return rezultat.cod_iesire


if __name__ == "__main__":
    sys.exit(main())
