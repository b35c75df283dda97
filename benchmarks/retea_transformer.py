"""Scriptul de măsurare a modelului din capitolul 01: `ReteaTransformer`, eager față de compilat, la
inferență și la un pas de antrenare. Nu e un test: tipărește cifrele, cu aceeași disciplină de
măsurare ca notebook-urile (`curs_compilare.masurare.compara`, variante măsurate intercalat, în runde, mediană și
interval; `timp_compilare` pentru prima apelare, cu un cache gol).

Inferența are două forme: evaluarea unui lot (trecerea înainte și pierderea, fără gradienți),
cea din capitol, și, pentru comparație, doar trecerea înainte (logit-urile).

    python benchmarks/retea_transformer.py                  # configurația capitolului 01
    python benchmarks/retea_transformer.py --toate          # și configurațiile alternative
    python benchmarks/retea_transformer.py --dim-model 768 --nr-capete 12 --lungime 1024 --marime-lot 8

Pe un GPU, calculul rulează în bfloat16 (float16 pe GPU-urile fără bfloat16 nativ), cu
`torch.autocast`; pe procesor, în float32.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from curs_compilare.cifre import cu_unitate  # noqa: E402
from curs_compilare.masurare import compara, cronologie_kerneluri  # noqa: E402
from curs_compilare.masurare_compilare import incalzeste_compilatorul, timp_compilare  # noqa: E402
from curs_compilare.modele import (  # noqa: E402
    ConfiguratieTransformer,
    ReteaTransformer,
    configuratie_pentru_mediu,
    cu_precizie,
    lot_aleator,
    optimizator_pentru,
    pas_antrenare,
    pierdere,
    pierdere_evaluare,
    precizie_pentru_mediu,
)

#: Configurații de comparat cu cea a capitolului (pe un GPU mare): alt vocabular, alte adâncimi.
ALTERNATIVE = {
    "vocabular 8192, 4 straturi": ConfiguratieTransformer(8192, 512, 8, 4, 1024, 16),
    "vocabular 50304, 6 straturi": ConfiguratieTransformer(50304, 512, 8, 6, 1024, 16),
    "vocabular 50304, lățime 768": ConfiguratieTransformer(50304, 768, 12, 4, 1024, 8),
}


def timp_kerneluri_s(functie, *argumente) -> float:
    """Suma duratelor kernel-urilor unei apelări, din torch.profiler (0 pe procesor)."""
    if not torch.cuda.is_available():
        return 0.0
    return sum(e.durata_us for e in cronologie_kerneluri(functie, *argumente)) / 1e6


def masoara_configuratia(nume: str, configuratie: ConfiguratieTransformer, runde: int) -> dict:
    dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    precizie = precizie_pentru_mediu()
    torch.manual_seed(0)
    model = ReteaTransformer(configuratie).to(dispozitiv)
    intrari, tinte = lot_aleator(configuratie, dispozitiv)
    rezultat = {"nume": nume, "parametri": model.numar_parametri()}

    # inferență: evaluarea unui lot (ca în capitol) și doar logit-urile
    model.eval()
    forme = {
        "inferenta": (cu_precizie(lambda x, y: pierdere_evaluare(model, x, y), precizie, dispozitiv), (intrari, tinte)),
        "logituri": (cu_precizie(torch.no_grad()(model), precizie, dispozitiv), (intrari,)),
    }
    for parte, (functie, argumente) in forme.items():
        compilata = torch.compile(functie)
        rezultat[f"compilare_{parte}_s"] = timp_compilare(compilata, *argumente)
        rezultat[parte] = compara({"eager": functie, "compilat": compilata}, *argumente, runde=runde, timp_minim_s=1.0)
        rezultat[f"{parte}_gpu"] = (timp_kerneluri_s(functie, *argumente), timp_kerneluri_s(compilata, *argumente))

    # antrenare: două copii identice, optimizatorul AdamW (fused pe GPU) necompilat în ambele
    modele = {v: copy.deepcopy(model).train() for v in ("eager", "compilat")}
    optimizatoare = {v: optimizator_pentru(m) for v, m in modele.items()}
    pierderi = {v: cu_precizie(lambda x, y, m=m: pierdere(m, x, y), precizie, dispozitiv) for v, m in modele.items()}
    pierderi["compilat"] = torch.compile(pierderi["compilat"])
    pasi = {v: (lambda v=v: pas_antrenare(pierderi[v], optimizatoare[v], intrari, tinte)) for v in modele}
    rezultat["compilare_antrenare_s"] = timp_compilare(pasi["compilat"], pe_gpu=dispozitiv == "cuda")
    comparatie = compara(pasi, runde=runde, timp_minim_s=2.0)
    rezultat["antrenare"] = comparatie
    rezultat["antrenare_gpu"] = (timp_kerneluri_s(pasi["eager"]), timp_kerneluri_s(pasi["compilat"]))
    return rezultat


def afiseaza(r: dict) -> None:
    print(f"\n== {r['nume']} ({r['parametri'] / 1e6:.1f} M parametri)")
    etichete = {"inferenta": "inferență (evaluarea unui lot)", "logituri": "doar logit-urile", "antrenare": "pas de antrenare"}
    for parte, eticheta in etichete.items():
        c = r[parte]
        gpu_e, gpu_c = r[f"{parte}_gpu"]
        print(f"  {eticheta}:")
        print(f"    {c['eager']}")
        print(f"    {c['compilat']}")
        print(f"    ACCELERARE {c.accelerare('eager', 'compilat')}. {c.motiv_ceas}")
        if gpu_e:
            print(
                f"    timpul kernel-urilor (profiler): eager {cu_unitate(gpu_e * 1e3, 'ms')}, compilat "
                f"{cu_unitate(gpu_c * 1e3, 'ms')} → {cu_unitate(gpu_e / gpu_c, '×')}; GPU-ul lucrează "
                f"{gpu_e / c['eager'].mediana_s:.0%} din timp (eager), {gpu_c / c['compilat'].mediana_s:.0%} (compilat)"
            )
        print(f"    prima apelare compilată (cache gol): {cu_unitate(r[f'compilare_{parte}_s'], 's')}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toate", action="store_true", help="și configurațiile alternative")
    parser.add_argument("--runde", type=int, default=7)
    for camp in dataclasses.fields(ConfiguratieTransformer):
        parser.add_argument("--" + camp.name.replace("_", "-"), type=int)
    argumente = parser.parse_args(argv)
    baza = configuratie_pentru_mediu()
    schimbari = {c.name: getattr(argumente, c.name) for c in dataclasses.fields(ConfiguratieTransformer)}
    configuratii = {"capitolul 01": dataclasses.replace(baza, **{k: v for k, v in schimbari.items() if v})}
    if argumente.toate:
        configuratii.update(ALTERNATIVE)
    start = time.perf_counter()
    incalzire = incalzeste_compilatorul()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name() if torch.cuda.is_available() else 'CPU'}, "
          f"precizie {precizie_pentru_mediu() or torch.float32}; încălzirea compilatorului: {incalzire:.1f} s")
    for nume, configuratie in configuratii.items():
        print(f"\n{nume}: {configuratie}", flush=True)
        afiseaza(masoara_configuratia(nume, configuratie, argumente.runde))
        torch._dynamo.reset()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    print(f"\nTotal: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
