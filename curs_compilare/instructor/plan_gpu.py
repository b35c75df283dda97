"""Rulările pe GPU ale referinței cursului, împărțite în pași care încap fiecare în câteva minute, ca o
mașină cu GPU împrumutată pe timp scurt (sau o sesiune întreruptă) să poată relua de unde a rămas.

Pașii, în ordine (`--lista` îi tipărește cu comenzile lor):

1. **diagnoza**: încărcarea pachetelor AOTInductor cu fiecare compilator C++ (`benchmarks/capitolul09.py`)
   și pierderile antrenării cu fereastră față de SDPA (`benchmarks/capitolul10.py --parte pierderi`);
2. **debitul FlexAttention** pe forme și opțiuni de kernel (`benchmarks/capitolul10.py --parte debit`)
   și capitolul 08 cu `torchrun` pe un GPU, cu NCCL;
3. … **referința**: toate notebook-urile cursului (capitolele și soluțiile), în grupuri care încap în
   `--limita-pas` secunde după duratele cunoscute (referința GPU, altfel duratele văzute pe un GPU din
   `assets/plan_gpu/durate_observate.json`, altfel cea de procesor), executate
   pe rând de validarea cursului (ca la `make validare`) și adunate în același raport (`--completeaza`), în
   `build/referinta/`;
4. **verificarea de dinaintea orei**, în profilul T4 (`make verifica SOLUTII=1`, cu `CURS_GPU_SIMULAT=T4`);
5. **profilul Colab**, în valuri: fiecare capitol validat în condițiile unui runtime Colab (2 nuclee,
   T4 simulat, cache gol), câte unul pe o pereche de nuclee, mai multe deodată (cifrele lor sunt limite
   de jos, nu referințe de timp), apoi unite (`--uneste`) într-un singur raport, `build/colab/`.

    python -m curs_compilare.instructor.plan_gpu --lista          # pașii și comenzile lor
    python -m curs_compilare.instructor.plan_gpu --pas 3          # rulează pasul 3 (jurnal în build/plan_gpu/)

După pașii referinței, pe mașina ta: `cp build/referinta/rezultate.json build/referinta/raport.md
build/referinta/durate.png assets/referinta_h200/`, notebook-urile executate în
`assets/referinta_h200/executate/`, `make pagini DIN=build/referinta` (paginile, în
`assets/referinta_h200/pagini/`) și `make durate`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

RADACINA = Path(__file__).resolve().parents[2]
DOSAR_REFERINTA = Path("build") / "referinta"
#: Cât durează, cel mult, un pas (secunde): încape într-o comandă de 10 minute, cu instalarea și rezerva.
LIMITA_PAS_S = 480.0
#: Pe un GPU, față de procesor, un notebook fără durată GPU cunoscută e socotit cât pe procesor (cu rezervă).
FACTOR_DIN_PROCESOR = 1.5
#: Cel mult atât rulează un notebook al referinței: oprit la limită, își păstrează ieșirile de până atunci
#: (cu durata fiecărei celule), iar pasul nu trece de comanda lui de 10 minute.
LIMITA_NOTEBOOK_S = 540.0
#: Un notebook fără nicio durată cunoscută (un capitol nou).
DURATA_NECUNOSCUTA_S = 240.0
#: Câte notebook-uri rulează deodată în profilul Colab (câte o pereche de nuclee fiecare).
PARALEL_COLAB = 8


@dataclass(frozen=True)
class Pas:
    nume: str
    comenzi: tuple[str, ...]
    secunde: float


def _durate_cunoscute(radacina: Path) -> dict[str, float]:
    """Durata fiecărui notebook, de la sursa cea mai bună la cea mai slabă: referința GPU; duratele văzute
    pe un GPU (`DURATE_OBSERVATE`; una neterminată contează cât limita unui pas, ca să stea singură); cea
    de procesor (× `FACTOR_DIN_PROCESOR`)."""
    durate: dict[str, float] = {}
    for dosar, factor in (("referinta_cpu", FACTOR_DIN_PROCESOR), ("referinta_h200", 1.0)):
        cale = radacina / "assets" / dosar / "rezultate.json"
        if cale.is_file():
            for r in json.loads(cale.read_text(encoding="utf-8")).get("notebookuri", []):
                if r.get("trecut"):
                    durate[r["cale"]] = float(r["secunde"]) * factor
        if dosar == "referinta_cpu":  # peste procesor, sub referința GPU
            durate.update(_durate_observate(radacina))
    return durate


#: Duratele văzute pe un GPU, pentru plan (nu o referință): vezi `despre` în fișier.
DURATE_OBSERVATE = Path("assets") / "plan_gpu" / "durate_observate.json"


def _durate_observate(radacina: Path) -> dict[str, float]:
    cale = radacina / DURATE_OBSERVATE
    if not cale.is_file():
        return {}
    durate = {}
    for nb, r in json.loads(cale.read_text(encoding="utf-8")).get("notebookuri", {}).items():
        durate[nb] = float(r["secunde"]) if r.get("secunde") is not None else LIMITA_PAS_S
    return durate


def grupuri_referinta(notebookuri: list[str], durate: dict[str, float], limita_s: float = LIMITA_PAS_S) -> list[list[str]]:
    """Notebook-urile, în ordinea lor, în grupuri consecutive de cel mult `limita_s` secunde (un
    notebook mai lung decât limita stă singur în grupul lui)."""
    grupuri: list[list[str]] = []
    suma = 0.0
    for cale in notebookuri:
        durata = durate.get(cale, DURATA_NECUNOSCUTA_S)
        if not grupuri or suma + durata > limita_s:
            grupuri.append([])
            suma = 0.0
        grupuri[-1].append(cale)
        suma += durata
    return grupuri


def pasii(radacina: Path = RADACINA, limita_s: float = LIMITA_PAS_S) -> list[Pas]:
    """Toți pașii, în ordine."""
    python = "python3"
    capitole = sorted(p.relative_to(radacina).as_posix() for p in (radacina / "notebooks").glob("*.ipynb"))
    solutii = sorted(p.relative_to(radacina).as_posix() for p in (radacina / "solutions").glob("*.ipynb"))
    durate = _durate_cunoscute(radacina)
    pasi = [
        Pas("diagnoza: pachetele AOTInductor pe compilatoare, pierderile cu fereastră",
            (f"{python} benchmarks/capitolul09.py", f"{python} benchmarks/capitolul10.py --parte pierderi"), 300),
        Pas("debitul FlexAttention; capitolul 08 cu torchrun și NCCL, pe un GPU",
            (f"{python} benchmarks/capitolul10.py --parte debit",
             "CURS_FISIER_CIFRE=build/plan_gpu/cifre_08_n1.jsonl torchrun --nproc-per-node=1 benchmarks/capitolul08.py"), 420),
    ]
    # capitolul și soluția lui, unul lângă altul: un grup se poate relua singur
    ordonate = [c for cap in capitole for c in [cap] + [s for s in solutii if Path(s).name.startswith(Path(cap).name[:3])]]
    ordonate += [s for s in solutii if s not in ordonate]
    for i, grup in enumerate(grupuri_referinta(ordonate, durate, limita_s)):
        completeaza = f" --completeaza {DOSAR_REFERINTA}/rezultate.json" if i else ""
        pasi.append(Pas(f"referința, partea {i + 1}: " + ", ".join(Path(c).stem[:2] + ("s" if c.startswith("solutions") else "")
                                                               for c in grup),
                        (f"{python} -m curs_compilare.instructor.validare --limita-notebook {LIMITA_NOTEBOOK_S:.0f} "
                         f"--iesire {DOSAR_REFERINTA}{completeaza} "
                         + " ".join(grup),), sum(durate.get(c, DURATA_NECUNOSCUTA_S) for c in grup)))
    pasi.append(Pas("verificarea de dinaintea orei, în profilul T4, cu soluțiile",
                    (f"CURS_GPU_SIMULAT=T4 {python} -m curs_compilare.instructor.verificare_rapida --solutii --paralel 4",), 420))
    perechi = [f"{2 * i},{2 * i + 1}" for i in range(PARALEL_COLAB)]
    valuri = [capitole[i:i + PARALEL_COLAB] for i in range(0, len(capitole), PARALEL_COLAB)]
    for i, val in enumerate(valuri):
        lansari = " & ".join(
            f"taskset -c {perechi[j]} {python} -m curs_compilare.instructor.validare --profil-colab --colab-simulat "
            f"--iesire build/colab/{Path(c).stem[:2]} {c}" for j, c in enumerate(val))
        comenzi = [f"{lansari} & wait"]
        if i == len(valuri) - 1:
            rapoarte = " ".join(f"build/colab/{Path(c).stem[:2]}/rezultate.json" for c in capitole)
            comenzi.append(f"{python} -m curs_compilare.instructor.validare --uneste {rapoarte} --iesire build/colab")
        pasi.append(Pas(f"profilul Colab, valul {i + 1}: " + ", ".join(Path(c).stem[:2] for c in val)
                        + " (fiecare pe o pereche de nuclee, deodată)" + (", apoi toate unite" if len(comenzi) > 1 else ""),
                        tuple(comenzi), 480))
    return pasi


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lista", action="store_true", help="tipărește pașii și comenzile lor")
    parser.add_argument("--pas", type=int, help="rulează pasul cu acest număr (de la 1)")
    parser.add_argument("--limita-pas", type=float, default=LIMITA_PAS_S, help="secunde, cel mult, pentru un pas al referinței")
    argumente = parser.parse_args(argv)
    pasi = pasii(RADACINA, argumente.limita_pas)
    if argumente.lista or argumente.pas is None:
        for i, pas in enumerate(pasi, 1):
            print(f"{i}. {pas.nume} (circa {round(pas.secunde / 60) or 1} min)")
            for comanda in pas.comenzi:
                print(f"     {comanda}")
        return 0
    if not 1 <= argumente.pas <= len(pasi):
        print(f"Pașii sunt de la 1 la {len(pasi)}.")
        return 2
    pas = pasi[argumente.pas - 1]
    jurnale = RADACINA / "build" / "plan_gpu"
    jurnale.mkdir(parents=True, exist_ok=True)
    print(f"Pasul {argumente.pas}: {pas.nume}", flush=True)
    cod_final = 0
    for comanda in pas.comenzi:
        start = time.perf_counter()
        print(f"$ {comanda}", flush=True)
        with open(jurnale / f"pas_{argumente.pas}.log", "a", encoding="utf-8") as jurnal:
            proces = subprocess.Popen(["bash", "-c", comanda], cwd=RADACINA, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
            for rand in proces.stdout:
                print(rand, end="", flush=True)
                jurnal.write(rand)
            cod = proces.wait()
        print(f"(cod {cod}, {time.perf_counter() - start:.0f} s: {shlex.split(comanda)[0]}…)", flush=True)
        cod_final = cod_final or cod
    return cod_final


if __name__ == "__main__":
    sys.exit(main())
