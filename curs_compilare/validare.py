"""Validarea cursului pe mașina curentă — comanda instructorului (`make validare`).

Execută fiecare notebook din `notebooks/` și `solutions/` (pe GPU, dacă există unul) și scrie
un raport în `build/validare/`:

- `raport.md` — mașina, versiunile, starea și durata fiecărui notebook, cifrele-cheie;
- `rezultate.json` — aceleași date, pentru a fi păstrate ca rezultate de referință;
- `durate.png` — durata fiecărui notebook;
- `executate/` — notebook-urile executate, cu ieșirile lor, de răsfoit.

    python -m curs_compilare.validare [--iesire build/validare] [--limita-celula 1200]
                                      [--completeaza rezultate.json] [NOTEBOOK ...]

Cu `--completeaza`, rezultatele notebook-urilor executate acum înlocuiesc, într-un raport mai
vechi, doar rezultatele acelorași notebook-uri; restul raportului vechi rămâne (de exemplu,
după ce ai adăugat un capitol, îl validezi doar pe el și completezi rezultatele de referință).

În textul tipărit de fiecare notebook executat se caută și concluziile care se contrazic singure
(„de 0,94 ori mai rapid”, vezi `concluzii.contradictii`) și numerele scrise altfel decât cere
cursul („2.63×”, „32 kernel-uri”, vezi `cifre.probleme_de_format`): un notebook cu așa ceva e
socotit eșuat.

Două rapoarte, de pe două rulări (de exemplu pe două mașini de același fel), se compară cifră
cu cifră:

    python -m curs_compilare.validare --compara build/validare_1/rezultate.json build/validare_2/rezultate.json

Comanda tipărește, pentru fiecare cifră-cheie, raportul dintre cele două valori și semnalează
cifrele care diferă cu mai mult de 15% (`--prag`); cele care depind de procesorul mașinii sunt
doar marcate. Se termină cu cod de eroare dacă vreo cifră care nu depinde de procesor diferă
peste prag.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .cifre import VARIABILA_FISIER, cu_substantiv, cu_unitate, descrie_cifra, format_numar, probleme_de_format
from .concluzii import contradictii, text_iesiri
from .mediu import detecteaza_mediul

#: Cât pot diferi, cel mult, două rulări ale aceleiași cifre (raportul dintre valori: 1,15).
PRAG_DIFERENTA = 0.15


def _text_tiparit(nb) -> str:
    """Tot textul tipărit de celulele unui notebook executat."""
    return "\n".join(text_iesiri(celula.get("outputs", [])) for celula in nb.cells)


def _executa(cale: Path, dosar_executate: Path, limita_celula: int) -> dict:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(cale, as_version=4)
    fd, fisier_cifre = tempfile.mkstemp(prefix="cifre_", suffix=".jsonl")
    os.close(fd)
    os.environ[VARIABILA_FISIER] = fisier_cifre
    client = NotebookClient(
        nb,
        timeout=limita_celula,
        kernel_name="python3",
        resources={"metadata": {"path": str(cale.parent)}},
    )
    eroare = None
    start = time.perf_counter()
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
        eroare = str(e).strip().splitlines()
        eroare = "\n".join(eroare[-15:])
    durata = time.perf_counter() - start
    os.environ.pop(VARIABILA_FISIER, None)
    tiparit = _text_tiparit(nb)
    contrazise = contradictii(tiparit)
    if contrazise and eroare is None:
        eroare = "Concluzii care se contrazic singure în textul tipărit: " + "; ".join(f"„{c}”" for c in contrazise)
    probleme = probleme_de_format("\n".join(text_iesiri(c.get("outputs", []), doar_stdout=True) for c in nb.cells))
    if probleme and eroare is None:
        eroare = "Numere scrise altfel decât cere cursul în textul tipărit: " + "; ".join(probleme[:10])
    dosar_executate.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dosar_executate / cale.name)
    cifre = []
    with open(fisier_cifre, encoding="utf-8") as f:
        for rand in f:
            if rand.strip():
                inregistrare = json.loads(rand)
                inregistrare["notebook"] = cale.as_posix()
                cifre.append(inregistrare)
    os.unlink(fisier_cifre)
    return {"cale": cale.as_posix(), "trecut": eroare is None, "secunde": durata, "eroare": eroare, "cifre": cifre}


def _descriere_mediu() -> dict:
    mediu = detecteaza_mediul()
    return {
        "dispozitiv": mediu.dispozitiv,
        "gpu": mediu.nume_gpu or "niciunul (CPU)",
        "capabilitate": ".".join(map(str, mediu.capabilitate)) if mediu.capabilitate else None,
        "numar_sm": mediu.numar_sm,
        "python": mediu.versiune_python,
        "torch": mediu.versiune_torch,
        "triton": mediu.versiune_triton,
        "profil": mediu.profil,
    }


def _grafic_durate(rezultate: list[dict], cale: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nume = [Path(r["cale"]).stem for r in rezultate]
    durate = [r["secunde"] for r in rezultate]
    culori = ["#34a853" if r["trecut"] else "#d93025" for r in rezultate]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(nume) + 1.2))
    ax.barh(range(len(nume)), durate, color=culori)
    ax.set_yticks(range(len(nume)), nume)
    ax.invert_yaxis()
    ax.set_xlabel("durata execuției (s); verde = trecut, roșu = eșuat")
    for i, d in enumerate(durate):
        ax.text(d, i, f" {format_numar(d, 0)} s", va="center")
    ax.set_xlim(0, max(durate) * 1.25 if durate else 1)
    fig.tight_layout()
    fig.savefig(cale, dpi=110)
    plt.close(fig)


def _raport_markdown(date: dict) -> str:
    mediu = date["mediu"]
    randuri = [
        "# Raportul validării cursului",
        "",
        f"Data: {date['data']}. Durata totală: {format_numar(date['secunde_total'])} s.",
        "",
        "## Mașina",
        "",
        f"- dispozitiv: {mediu['gpu']}"
        + (f" (capabilitate {mediu['capabilitate']}, {cu_substantiv(mediu['numar_sm'], 'SM', 'SM')})" if mediu["capabilitate"] else ""),
        f"- Python {mediu['python']}, torch {mediu['torch']}, triton {mediu['triton'] or 'neinstalat'}",
        f"- profil de dimensiuni: {mediu['profil']}",
        "",
        "## Notebook-urile",
        "",
        "| notebook | stare | durată |",
        "|---|---|---|",
    ]
    for r in date["notebookuri"]:
        stare = "trecut" if r["trecut"] else "**EȘUAT**"
        randuri.append(f"| `{r['cale']}` | {stare} | {format_numar(r['secunde'])} s |")
    randuri += ["", "![Durata fiecărui notebook](durate.png)", "", "## Cifrele-cheie măsurate", ""]
    if date["cifre"]:
        randuri += [
            "Valoarea e mediana; în paranteză, cea mai mică și cea mai mare dintre medianele rundelor de "
            "măsurare și, unde e cazul, mențiunea că cifra depinde și de procesorul mașinii (un apel "
            "limitat de procesor, un timp de compilare), nu doar de GPU.",
            "",
            "| cifră | valoare | notebook |",
            "|---|---|---|",
        ]
        for c in date["cifre"]:
            randuri.append(f"| {c['descriere']} | {descrie_cifra(c)} | `{Path(c['notebook']).name}` |")
    else:
        randuri.append("Niciun notebook n-a înregistrat cifre.")
    esecuri = [r for r in date["notebookuri"] if not r["trecut"]]
    if esecuri:
        randuri += ["", "## Erori", ""]
        for r in esecuri:
            randuri += [f"### `{r['cale']}`", "", "```", r["eroare"] or "", "```", ""]
    return "\n".join(randuri) + "\n"


def completeaza(vechi: dict, nou: dict) -> dict:
    """Raportul `vechi`, în care notebook-urile din `nou` (și cifrele lor) sunt înlocuite cu
    cele din `nou`, iar restul rămân. Ordinea: notebook-urile vechi, apoi cele noi."""
    executate = {r["cale"] for r in nou["notebookuri"]}
    notebookuri = [r for r in vechi.get("notebookuri", []) if r["cale"] not in executate] + nou["notebookuri"]
    notebookuri.sort(key=lambda r: (not r["cale"].startswith("notebooks/"), r["cale"]))
    cifre = [c for c in vechi.get("cifre", []) if c.get("notebook") not in executate] + nou["cifre"]
    ordine = {r["cale"]: i for i, r in enumerate(notebookuri)}
    cifre.sort(key=lambda c: ordine.get(c.get("notebook"), len(ordine)))
    return {**nou, "secunde_total": sum(r["secunde"] for r in notebookuri), "notebookuri": notebookuri, "cifre": cifre}


def compara_rapoarte(primul: dict, al_doilea: dict, prag: float = PRAG_DIFERENTA) -> list[dict]:
    """Cifrele comune ale două rapoarte, fiecare cu raportul dintre valoarea mai mare și cea
    mai mică (`factor`) și verdictul: „la fel” (factor ≤ 1 + prag), „depinde de procesor”
    (peste prag, dar cifra depinde de procesorul mașinii) sau „diferă”."""
    doi = {c["cheie"]: c for c in al_doilea.get("cifre", [])}
    randuri = []
    for a in primul.get("cifre", []):
        b = doi.get(a["cheie"])
        if b is None:
            continue
        mic, mare = sorted((abs(a["valoare"]), abs(b["valoare"])))
        factor = mare / mic if mic else (1.0 if mare == 0 else float("inf"))
        depinde = bool(a.get("depinde_de_procesor") or b.get("depinde_de_procesor"))
        if factor <= 1 + prag:
            verdict = "la fel"
        elif depinde:
            verdict = "depinde de procesor"
        else:
            verdict = "diferă"
        randuri.append({"cheie": a["cheie"], "descriere": a["descriere"], "primul": a, "al_doilea": b,
                        "factor": factor, "depinde_de_procesor": depinde, "verdict": verdict})
    return randuri


def _tabel_comparatie(randuri: list[dict], prag: float) -> str:
    linii = [
        f"| cifră | prima rulare | a doua rulare | raport | verdict (prag {format_numar(100 * prag)}%) |",
        "|---|---|---|---|---|",
    ]
    for r in randuri:
        linii.append(
            f"| {r['descriere']} | {descrie_cifra(r['primul'])} | {descrie_cifra(r['al_doilea'])} | "
            f"{cu_unitate(r['factor'], '×')} | {r['verdict']} |"
        )
    diferite = [r for r in randuri if r["verdict"] == "diferă"]
    dependente = [r for r in randuri if r["verdict"] == "depinde de procesor"]
    linii += [
        "",
        f"{cu_substantiv(len(randuri), 'cifră comună', 'cifre comune')}: "
        f"{len(randuri) - len(diferite) - len(dependente)} la fel, {len(dependente)} peste prag, dar dependente "
        f"de procesor, {len(diferite)} diferite.",
    ]
    return "\n".join(linii) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Execută notebook-urile cursului și scrie un raport.")
    parser.add_argument("notebookuri", nargs="*", help="implicit: notebooks/*.ipynb și solutions/*.ipynb")
    parser.add_argument("--iesire", default="build/validare", help="dosarul raportului")
    parser.add_argument("--limita-celula", type=int, default=1200, help="secunde, cel mult, pentru o celulă")
    parser.add_argument("--completeaza", help="un rezultate.json mai vechi, de completat cu notebook-urile executate acum")
    parser.add_argument("--compara", nargs=2, metavar="REZULTATE_JSON", help="compară două rapoarte, fără să execute nimic")
    parser.add_argument("--prag", type=float, default=PRAG_DIFERENTA, help="diferența relativă acceptată la --compara")
    argumente = parser.parse_args(argv)

    if argumente.compara:
        primul, al_doilea = (json.loads(Path(c).read_text(encoding="utf-8")) for c in argumente.compara)
        randuri = compara_rapoarte(primul, al_doilea, argumente.prag)
        print(_tabel_comparatie(randuri, argumente.prag))
        return 1 if any(r["verdict"] == "diferă" for r in randuri) else 0

    cai = [Path(c) for c in argumente.notebookuri] or (
        sorted(Path("notebooks").glob("*.ipynb")) + sorted(Path("solutions").glob("*.ipynb"))
    )
    iesire = Path(argumente.iesire)
    iesire.mkdir(parents=True, exist_ok=True)
    mediu = _descriere_mediu()
    print(f"Validez {len(cai)} notebook-uri pe {mediu['gpu']} (torch {mediu['torch']})", flush=True)

    start = time.perf_counter()
    rezultate = []
    for cale in cai:
        r = _executa(cale, iesire / "executate", argumente.limita_celula)
        print(f"  {'trecut' if r['trecut'] else 'EȘUAT '}  {format_numar(r['secunde'], 1):>7} s  {cale}", flush=True)
        rezultate.append(r)
    date = {
        "data": dt.datetime.now().isoformat(timespec="seconds"),
        "secunde_total": time.perf_counter() - start,
        "mediu": mediu,
        "notebookuri": [{k: v for k, v in r.items() if k != "cifre"} for r in rezultate],
        "cifre": [c for r in rezultate for c in r["cifre"]],
    }
    if argumente.completeaza:
        date = completeaza(json.loads(Path(argumente.completeaza).read_text(encoding="utf-8")), date)
    (iesire / "rezultate.json").write_text(json.dumps(date, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    _grafic_durate(date["notebookuri"], iesire / "durate.png")
    (iesire / "raport.md").write_text(_raport_markdown(date), encoding="utf-8")
    trecute = sum(r["trecut"] for r in rezultate)
    print(f"{trecute} trecute, {len(rezultate) - trecute} eșuate; raportul: {iesire / 'raport.md'}")
    return 0 if trecute == len(rezultate) else 1


if __name__ == "__main__":
    sys.exit(main())
