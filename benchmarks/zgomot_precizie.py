"""Cât de stabil e verdictul despre precizie al capitolului 06, pe mașina curentă.

Capitolul 06 antrenează modelul în precizie redusă (bfloat16, float16 pe un GPU fără bfloat16),
eager și compilat, plus o dată eager în float32, și judecă abaterea curbei compilate față de
float32 după un **plic de zgomot**: cât se abat între ele și față de float32 câteva rulări eager
identice în precizie redusă (`cap06_modelul_intreg.PlicZgomot`). Scriptul acesta repetă experimentul de mai
multe ori decât îl poate repeta notebook-ul și măsoară de câte ori ar ieși alt verdict:

- antrenează o dată eager în float32, de `--eager` ori eager în precizie redusă (aceleași ponderi de
  pornire, aceleași loturi) și de `--compilate` ori varianta compilată a capitolului;
- pentru fiecare alegere de `RULARI_ZGOMOT` rulări eager (plicul pe care l-ar vedea notebook-ul),
  calculează raportul dintre abaterea unei curbe de judecat și pragul plicului, pentru două feluri
  de curbe: o altă rulare eager (nimic nu s-a schimbat în afară de zgomot, deci verdictul corect e
  „precizia”) și fiecare rulare compilată;
- tipărește distribuția rapoartelor, partea care ar trece de `FACTOR_ZGOMOT` și, în JSON
  (`--iesire`), toate curbele.

Pe un GPU, zgomotul vine din GPU însuși: două rulări eager identice în precizie redusă nu se
repetă bit cu bit (adunări atomice, ordinea reducerilor). Pe procesor, rulările sunt
deterministe: acolo, scriptul **imită** zgomotul înmulțind fiecare gradient cu (1 + ε·z), ε de
ordinul ultimei cifre a unui float32, z aleator, altul pentru fiecare rulare. Cifrele de pe
procesor spun deci ce face statistica pe un zgomot imitat, nu cât zgomot are un GPU.

    python benchmarks/zgomot_precizie.py                      # 8 eager, 3 compilate
    python benchmarks/zgomot_precizie.py --eager 6 --compilate 2 --pasi 200 --iesire build/zgomot.json
"""

from __future__ import annotations

import argparse
import copy
import functools
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from curs_compilare.capitole.cap06_modelul_intreg import (  # noqa: E402
    FACTOR_ZGOMOT,
    RULARI_ZGOMOT,
    DateCiclu,
    PlicZgomot,
    antreneaza,
    configuratie_capitol,
    functie_pentru_mod,
    medii_pe_ferestre,
    optimizare_cu_rata_tensor,
    optimizare_eager,
)
from curs_compilare.exercitii.cap06 import RATA_MAXIMA, rata_la_pasul  # noqa: E402
from curs_compilare.masurare_compilare import incalzeste_compilatorul  # noqa: E402
from curs_compilare.mediu import dimensiune  # noqa: E402
from curs_compilare.modele import ReteaTransformer, cu_precizie, pierdere, precizie_pentru_mediu  # noqa: E402

tipareste = functools.partial(print, flush=True)

#: Pe procesor: cât de mare e perturbarea relativă a gradienților care imită zgomotul unui GPU.
EPSILON_IMITAT = 2.0**-23


def _cu_zgomot_imitat(pas, model, samanta: int | None):
    """Pasul optimizatorului, precedat (doar dacă `samanta` e dată) de o perturbare minusculă a
    gradienților, alta pentru fiecare rulare: imită nedeterminismul unui GPU pe procesor."""
    if samanta is None:
        return pas
    generator = torch.Generator().manual_seed(samanta)

    def pas_perturbat():
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.mul_(1 + EPSILON_IMITAT * torch.randn(p.grad.shape, generator=generator).to(p.grad.device))
        pas()

    return pas_perturbat


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eager", type=int, default=8, help="câte rulări eager în precizie redusă")
    parser.add_argument("--compilate", type=int, default=3, help="câte rulări compilate în precizie redusă")
    parser.add_argument("--pasi", type=int, default=None, help="implicit, ca în capitol")
    parser.add_argument("--iesire", default=None, help="un fișier JSON cu curbele și rapoartele")
    argumente = parser.parse_args(argv)

    pe_gpu = torch.cuda.is_available()
    dispozitiv = "cuda" if pe_gpu else "cpu"
    precizie = precizie_pentru_mediu() or torch.bfloat16
    configuratie = configuratie_capitol()
    pasi = argumente.pasi or dimensiune(gpu=200, cpu=300, rapid=200)
    rata = 3e-3

    def program_rata(t):  # programul capitolului: încălzire, apoi cosinus (exercițiul 1)
        return rata_la_pasul(t, pasi) * rata / RATA_MAXIMA

    loturi = DateCiclu(configuratie, dispozitiv).loturi(pasi)
    imitat = not pe_gpu
    tipareste(f"{configuratie}; {pasi} de pași; precizia {precizie}; "
              + ("zgomot IMITAT pe procesor (gradienții perturbați)" if imitat else "zgomotul GPU-ului"))
    if precizie == torch.float16:
        tipareste("float16 fără GradScaler aici: scriptul e făcut pentru bfloat16.")

    def ruleaza(nume: str, precizie_rularii, samanta: int | None, compilat: bool = False) -> list[float]:
        torch.manual_seed(0)
        model = ReteaTransformer(configuratie).to(dispozitiv)
        if compilat:
            optimizator, pas = optimizare_cu_rata_tensor(model, rata)
        else:
            optimizator, pas = optimizare_eager(model, rata)
        calcul = cu_precizie(lambda x, y: pierdere(model, x, y), precizie_rularii, dispozitiv)
        if compilat:
            calcul = functie_pentru_mod(calcul, "default", "antrenare")
        start = time.perf_counter()
        rulare = antreneaza(model, loturi, calcul, _cu_zgomot_imitat(pas, model, samanta if imitat else None),
                            optimizator, nume, program_rata)
        tipareste(f"  {nume:14} pierderea {rulare.pierderi[0]:.3f} → {sum(rulare.pierderi[-10:]) / 10:.3f} "
                  f"({time.perf_counter() - start:.1f} s)")
        return rulare.pierderi

    if pe_gpu:
        torch.set_float32_matmul_precision("high")
    fp32 = ruleaza("float32", None, 10_000)
    torch.set_float32_matmul_precision("highest")
    eager = [ruleaza(f"eager {i}", precizie, i) for i in range(argumente.eager)]
    incalzeste_compilatorul()
    compilate = [ruleaza(f"compilat {i}", precizie, 1_000 + i, compilat=True) for i in range(argumente.compilate)]

    fereastra = max(1, pasi // 10)
    medie = functools.partial(medii_pe_ferestre, fereastra=fereastra)
    curba_fp32 = medie(fp32)
    rapoarte_nul, rapoarte_compilat, praguri = [], [], []
    for alese in itertools.combinations(range(len(eager)), min(RULARI_ZGOMOT, len(eager))):
        plic = PlicZgomot(curba_fp32, tuple(medie(eager[i]) for i in alese), fereastra)
        praguri.append(plic.prag)
        for rest in set(range(len(eager))) - set(alese):
            rapoarte_nul.append(plic.raport(medie(eager[rest])))
        for c in compilate:
            rapoarte_compilat.append(plic.raport(medie(c)))

    def rezumat(nume, valori):
        if not valori:
            return
        peste = sum(v > FACTOR_ZGOMOT for v in valori)
        tipareste(f"{nume:36} {len(valori):5} cazuri; mediana {statistics.median(valori):.2f}, "
                  f"maxim {max(valori):.2f}; peste {FACTOR_ZGOMOT:g}×: {peste} ({100 * peste / len(valori):.1f}%)")

    tipareste(f"\nPlicul: câte {RULARI_ZGOMOT} rulări eager, fereastra {fereastra} pași; "
              f"pragul între {min(praguri):.4f} și {max(praguri):.4f} (mediana {statistics.median(praguri):.4f})")
    rezumat("o altă rulare eager (verdict: precizia)", rapoarte_nul)
    rezumat("o rulare compilată", rapoarte_compilat)
    if argumente.iesire:
        Path(argumente.iesire).parent.mkdir(parents=True, exist_ok=True)
        Path(argumente.iesire).write_text(json.dumps({
            "configuratie": str(configuratie), "pasi": pasi, "imitat": imitat, "precizie": str(precizie),
            "fp32": fp32, "eager": eager, "compilate": compilate,
            "rapoarte_nul": rapoarte_nul, "rapoarte_compilat": rapoarte_compilat, "praguri": praguri,
        }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
