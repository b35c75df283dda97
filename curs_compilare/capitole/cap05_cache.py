"""Cache-urile compilării, măsurate în procese noi (capitolele 05 și 06).

O compilare făcută o dată nu trebuie refăcută: Inductor păstrează pe disc grafurile compilate,
kernel-urile Triton și rezultatele reglării automate, în dosarul dat de variabila de mediu
`TORCHINDUCTOR_CACHE_DIR`. Ca să vezi cât câștigi, trebuie să pornești un proces Python nou:
în același proces, Dynamo ține minte compilarea în memorie și n-ai măsura cache-ul de pe disc.

`primul_apel_in_proces_nou(dosar_cache, ...)` pornește un proces nou, cu cache-ul în
`dosar_cache`, care:
0. importă compilatorul și, implicit, îl încălzește: compilează, într-un cache gol, temporar, o
   funcție mică fără legătură cu modelul (`masurare_compilare.incalzeste_compilatorul`). Așa,
   taxa fixă a primei compilări din orice proces (pornirea proceselor care compilează în
   paralel, prima rulare a compilatorului C++ sau Triton, inițializarea CUDA) rămâne în afara
   timpilor, iar timpii compară doar compilarea, cache-ul și încărcarea artefactelor;
1. compilează un pas de antrenare (înainte și înapoi) al unui `ReteaTransformer` și îi măsoară
   primul apel;
2. opțional, compilează cu `mode="max-autotune-no-cudagraphs"` un produs de matrice
   `relu(a @ b + bias)` și îi măsoară primul apel (aici intră și reglarea automată);
3. opțional, salvează toate artefactele compilării într-un fișier
   (`torch.compiler.save_cache_artifacts`) sau le încarcă dintr-unul
   (`torch.compiler.load_cache_artifacts`) înainte de compilare; încărcarea se cronometrează
   separat (`incarcare_s`), nu intră în timpul primului pas.

Artefactele salvate cuprind și pe cele ale funcției de încălzire (câțiva KiB).

În profilul rapid (`CURS_PROFIL=rapid`: testele, verificarea de dinaintea orei), procesul nu se
încălzește decât dacă i se cere (`incalzeste=True`): cifrele profilului nu spun nimic, iar
încălzirea ar costa în fiecare proces cât o compilare întreagă, pe un GPU câteva secunde, pe
procesor peste zece.

`tabel_procese`, `grafic_procese` și `inregistreaza_procesele` scriu, desenează și înregistrează
ce au măsurat procesele, ca celulele capitolului 05 să arate doar experimentul.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from ..mediu import profil_curent
from ..modele import ConfiguratieTransformer

__all__ = [
    "PrimulApel", "primul_apel_in_proces_nou", "are_artefacte_cache", "tabel_procese", "grafic_procese",
    "inregistreaza_procesele",
]

_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import torch
    # Importurile compilatorului: o taxă fixă a oricărui proces, plătită aici, în afara timpilor
    # (altfel procesul rece ar plăti-o în primul pas, iar cel cu artefacte, în încărcarea lor).
    import torch._dynamo
    import torch._inductor.codecache
    import torch._inductor.compile_fx
    from curs_compilare.masurare_compilare import incalzeste_compilatorul
    from curs_compilare.mediu import detecteaza_mediul
    from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer, lot_aleator, pierdere

    # Procesul nou vede aceeași mașină ca notebook-ul: cu CURS_GPU_SIMULAT (moștenită), același
    # GPU simulat, aplicat înaintea oricărei compilări.
    detecteaza_mediul()

    cerere = json.loads(sys.argv[1])
    rezultat = {}
    dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    if cerere["incalzeste"]:
        # Taxa fixă a primei compilări din proces, plătită pe o funcție mică, într-un cache gol
        # temporar, înaintea timpilor (altfel primul pas, rece sau cu artefacte, ar plăti-o).
        rezultat["incalzire_s"] = incalzeste_compilatorul(dispozitiv)

    def sincronizeaza():
        if dispozitiv == "cuda":
            torch.cuda.synchronize()

    if cerere["incarca"]:
        start = time.perf_counter()
        with open(cerere["incarca"], "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())
        rezultat["incarcare_s"] = time.perf_counter() - start

    configuratie = ConfiguratieTransformer(**cerere["configuratie"])
    torch.manual_seed(0)
    model = ReteaTransformer(configuratie).to(dispozitiv)
    intrari, tinte = lot_aleator(configuratie, dispozitiv)
    pas = torch.compile(lambda x, y: pierdere(model, x, y))
    sincronizeaza()
    start = time.perf_counter()
    pas(intrari, tinte).backward()
    sincronizeaza()
    rezultat["pas_s"] = time.perf_counter() - start

    if cerere["latura_matmul"]:
        n = cerere["latura_matmul"]
        tip = getattr(torch, cerere["dtype_matmul"])
        a, b = (torch.randn(n, n, device=dispozitiv, dtype=tip) for _ in range(2))
        bias = torch.randn(n, device=dispozitiv, dtype=tip)
        produs = torch.compile(lambda a, b, bias: torch.relu(a @ b + bias), mode="max-autotune-no-cudagraphs")
        sincronizeaza()
        start = time.perf_counter()
        produs(a, b, bias)
        sincronizeaza()
        rezultat["matmul_s"] = time.perf_counter() - start

    if cerere["salveaza"]:
        artefacte = torch.compiler.save_cache_artifacts()
        if artefacte is not None:
            octeti, _ = artefacte
            with open(cerere["salveaza"], "wb") as f:
                f.write(octeti)
            rezultat["octeti_artefacte"] = len(octeti)
    print("REZULTAT " + json.dumps(rezultat))
    """
)


@dataclass(frozen=True)
class PrimulApel:
    """Ce a măsurat un proces nou: primul apel al pasului de antrenare, al produsului de
    matrice (dacă a fost cerut), încărcarea artefactelor, încălzirea compilatorului (în afara
    celorlalți timpi; None dacă n-a fost cerută) și durata întregului proces."""

    pas_s: float
    proces_s: float
    matmul_s: float | None = None
    incarcare_s: float | None = None
    octeti_artefacte: int | None = None
    incalzire_s: float | None = None


def are_artefacte_cache() -> bool:
    """Adevărat dacă torch-ul instalat are `torch.compiler.save_cache_artifacts` și
    `load_cache_artifacts` (de la PyTorch 2.7)."""
    import torch

    return hasattr(torch.compiler, "save_cache_artifacts") and hasattr(torch.compiler, "load_cache_artifacts")


def primul_apel_in_proces_nou(
    dosar_cache: str | Path,
    configuratie: ConfiguratieTransformer,
    latura_matmul: int | None = None,
    dtype_matmul: str = "bfloat16",
    salveaza: str | Path | None = None,
    incarca: str | Path | None = None,
    limita_s: float = 900,
    incalzeste: bool | None = None,
) -> PrimulApel:
    """Pornește un proces Python nou, cu `TORCHINDUCTOR_CACHE_DIR=dosar_cache`, și întoarce
    ce a măsurat el (vezi descrierea modulului). Cu `incalzeste=True`, procesul încălzește
    compilatorul înaintea timpilor; implicit (`None`), o face în afara profilului rapid.
    Aruncă `RuntimeError` cu ultimele rânduri ale erorii dacă procesul eșuează."""
    if incalzeste is None:
        incalzeste = profil_curent() != "rapid"
    radacina = Path(__file__).resolve().parents[2]
    cerere = {
        "configuratie": dataclasses.asdict(configuratie),
        "latura_matmul": latura_matmul,
        "dtype_matmul": dtype_matmul,
        "salveaza": str(salveaza) if salveaza else None,
        "incarca": str(incarca) if incarca else None,
        "incalzeste": bool(incalzeste),
    }
    mediu = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(dosar_cache))
    mediu["PYTHONPATH"] = os.pathsep.join(filter(None, [str(radacina), mediu.get("PYTHONPATH")]))
    start = time.perf_counter()
    proces = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(cerere)],
        env=mediu,
        capture_output=True,
        text=True,
        timeout=limita_s,
    )
    durata = time.perf_counter() - start
    rand = next((r for r in proces.stdout.splitlines() if r.startswith("REZULTAT ")), None)
    if proces.returncode != 0 or rand is None:
        coada = "\n".join((proces.stderr or proces.stdout).strip().splitlines()[-12:])
        raise RuntimeError(f"Procesul nou a eșuat (cod {proces.returncode}):\n{coada}")
    date = json.loads(rand.removeprefix("REZULTAT "))
    return PrimulApel(proces_s=durata, **date)


# ---------------------------------------------------------------------------------------------
# Ce tipărește, ce desenează și ce înregistrează capitolul 05 despre procesele noi
# ---------------------------------------------------------------------------------------------


def tabel_procese(procese: dict[str, PrimulApel]) -> str:
    """Câte un rând pentru fiecare proces nou („rece”, „cald”, „artefacte”): primul pas de
    antrenare și, dacă au fost măsurate, produsul reglat, încărcarea artefactelor și mărimea
    artefactelor salvate, plus durata întregului proces."""
    from ..cifre import format_octeti, format_timp

    randuri = []
    for nume, p in procese.items():
        rand = f"{nume:10s} pasul de antrenare: {format_timp(p.pas_s):>8}"
        if p.matmul_s is not None:
            rand += f"   produsul reglat: {format_timp(p.matmul_s):>8}"
        if p.incarcare_s is not None:
            rand += f"   încărcarea artefactelor: {format_timp(p.incarcare_s):>8}"
        if p.octeti_artefacte:
            rand += f"   artefacte salvate: {format_octeti(p.octeti_artefacte)}"
        randuri.append(rand + f"   (tot procesul: {format_timp(p.proces_s)})")
    return "\n".join(randuri)


def grafic_procese(procese: dict[str, PrimulApel], latura_cache: int | None):
    """Bare grupate pe proces: primul pas de antrenare și, când s-a măsurat și produsul
    (`latura_cache`, doar pe GPU), primul apel al produsului reglat. O singură serie stă centrată
    pe eticheta procesului. Întoarce axa."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.4))
    pozitii = list(range(len(procese)))
    serii = [("primul pas de antrenare", [p.pas_s for p in procese.values()])]
    if latura_cache:
        serii.append(("produsul reglat (max-autotune-no-cudagraphs)", [p.matmul_s for p in procese.values()]))
    latime = 0.8 / len(serii)  # o singură serie: barele stau centrate pe etichete
    for i, (eticheta, valori) in enumerate(serii):
        deplasare = (i - (len(serii) - 1) / 2) * latime
        ax.bar([p + deplasare for p in pozitii], valori, width=latime, label=eticheta)
    ax.set_xticks(pozitii, list(procese))
    ax.set_ylabel("durata primului apel (s)")
    ax.set_title("Primul apel într-un proces nou")
    ax.legend()
    return ax


def inregistreaza_procesele(procese: dict[str, PrimulApel]) -> None:
    """Primul pas de antrenare și primul apel al produsului reglat, în fiecare proces nou (pe
    GPU; amândouă depind și de procesor: sunt timpi de compilare și de încărcare)."""
    from .. import cifre

    for nume, p in procese.items():
        cifre.inregistreaza(f"05.cache_{nume}_pas_s", p.pas_s, "s", f"primul pas de antrenare (6 straturi), cache {nume}",
                            depinde_de_procesor=True)
        cifre.inregistreaza(f"05.cache_{nume}_matmul_s", p.matmul_s, "s", f"primul apel al produsului cu max-autotune, cache {nume}",
                            depinde_de_procesor=True)
