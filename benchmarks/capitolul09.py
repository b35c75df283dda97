"""Capitolul 09 pe mașina curentă: se încarcă un pachet AOTInductor sau oprește procesul? Cu ce
compilator C++ s-a făcut pachetul contează?

Pe unele mașini (de exemplu torch 2.11 cu g++ 13 și Python 3.12), `aoti_load_package` a oprit procesul
cu SIGSEGV, pentru un pachet CUDA și pentru unul de procesor deopotrivă; pe altele, același torch
încarcă pachetul fără probleme. Scriptul caută condiția: pentru fiecare compilator C++ găsit (`$CXX`,
g++, g++-12, g++-13, g++-14, clang++) și fiecare dispozitiv (procesorul și, dacă există, GPU-ul), într-un
proces nou, compilează cu el pachetul unui model mic (`CXX`, pe care Inductor îl folosește), îl încarcă
într-un alt proces nou (`cap09_export.incearca_incarcarea`: semnalul și ultimul apel Python, dacă
procesul moare) și îl dă programului C++ al capitolului, construit cu același compilator. La sfârșit,
un tabel: compilatorul, dispozitivul, încărcarea din Python, programul C++.

    python benchmarks/capitolul09.py
    python benchmarks/capitolul09.py --compilatoare g++-12,g++-13 --dispozitive cpu

Nimic nu se încarcă în procesul scriptului: o oprire nu-l oprește și pe el.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from curs_compilare.capitole import cap09_export as export09  # noqa: E402

print = functools.partial(print, flush=True)  # noqa: A001

_SCRIPT_PACHET = textwrap.dedent(
    """
    import sys, torch
    dispozitiv, cale = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)).to(dispozitiv).eval()
    x = torch.randn(4, 16, device=dispozitiv)
    program = torch.export.export(model, (x,), dynamic_shapes=({0: torch.export.Dim("lot", max=64)},))
    torch._inductor.aoti_compile_and_package(program, package_path=cale)
    torch.save((model.cpu().state_dict(), x.cpu()), cale + ".referinta")
    """
)


def compilatoare_gasite(cerute: str = "") -> list[str]:
    """Compilatoarele C++ de încercat, fără dubluri (aceeași cale o singură dată)."""
    nume = cerute.split(",") if cerute else [os.environ.get("CXX", ""), "g++", "g++-12", "g++-13", "g++-14", "clang++"]
    gasite, cai = [], set()
    for n in filter(None, nume):
        cale = shutil.which(n)
        if cale and os.path.realpath(cale) not in cai:
            cai.add(os.path.realpath(cale))
            gasite.append(n)
    return gasite


def o_incercare(compilator: str, dispozitiv: str, dosar: Path) -> dict:
    """Pachetul făcut cu `compilator`, încărcat din Python și din C++, fiecare în procesul lui."""
    cale = dosar / f"pachet_{compilator}_{dispozitiv}.pt2"
    mediu = {**os.environ, "CXX": compilator, "TORCHINDUCTOR_CACHE_DIR": str(dosar / f"cache_{compilator}_{dispozitiv}")}
    proces = subprocess.run([sys.executable, "-c", _SCRIPT_PACHET, dispozitiv, str(cale)], env=mediu,
                            capture_output=True, text=True, timeout=900)
    rand = {"compilator": compilator, "versiune": _versiune(compilator), "dispozitiv": dispozitiv}
    if proces.returncode != 0 or not cale.is_file():
        rand["pachet"] = f"n-a mers (cod {proces.returncode}): {(proces.stderr.strip().splitlines() or [''])[-1][:160]}"
        return rand
    _, x = torch.load(str(cale) + ".referinta")
    incarcare = export09.incearca_incarcarea(cale, x, dispozitiv=dispozitiv)
    rand["python"] = ("se încarcă" if incarcare.reusit else
                      f"oprit ({incarcare.semnal or incarcare.cod_iesire}; {incarcare.unde or incarcare.ultimul_rand})")
    os.environ["CXX"] = compilator
    try:
        executabil = export09.construieste_incarcatorul(dosar / f"cpp_{compilator}")
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
        model.load_state_dict(torch.load(str(cale) + ".referinta")[0])
        rulare = export09.ruleaza_incarcatorul(executabil, cale, x)
        with torch.no_grad():
            diferenta = float((rulare.iesire - model(x)).abs().max())
        rand["cpp"] = f"merge pe {rulare.dispozitiv} (diferența față de Python {diferenta:.1e})"
    except export09.EroareCpp as eroare:
        rand["cpp"] = f"n-a mers: {' '.join(str(eroare).split())[:160]}"
    return rand


def _versiune(compilator: str) -> str:
    try:
        return subprocess.run([compilator, "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compilatoare", default="", help="lista compilatoarelor, despărțite prin virgulă")
    parser.add_argument("--dispozitive", default="", help="cpu, cuda sau amândouă (implicit: ce are mașina)")
    argumente = parser.parse_args(argv)
    dispozitive = (argumente.dispozitive.split(",") if argumente.dispozitive
                   else ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
    python = ".".join(map(str, sys.version_info[:3]))
    print(f"torch {torch.__version__}, Python {python}, compilatorul cu care a fost construit torch: "
          f"{next((l.split('=', 1)[1] for l in torch.__config__.show().split(', ') if l.startswith('CXX_COMPILER=')), '?')}")
    randuri = []
    with tempfile.TemporaryDirectory(prefix="capitolul09_") as dosar:
        for compilator in compilatoare_gasite(argumente.compilatoare):
            for dispozitiv in dispozitive:
                rand = o_incercare(compilator, dispozitiv, Path(dosar))
                randuri.append(rand)
                print(json.dumps(rand, ensure_ascii=False))
    print("\ncompilatorul | dispozitivul | pachetul încărcat din Python | programul C++")
    for r in randuri:
        print(f"{r['versiune']} | {r['dispozitiv']} | {r.get('python', r.get('pachet'))} | {r.get('cpp', '—')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
