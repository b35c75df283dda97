"""Țintele capitolului 06 (modelul întreg), măsurate pe mașina curentă, cu același cod ca notebook-ul
(`curs_compilare.capitole.cap06_modelul_intreg`) și aceeași disciplină de măsurare (`compara`, `timp_pana_la_regim`).

Pentru fiecare țintă tipărește valoarea, ținta și dacă e atinsă:
- pasul de antrenare compilat (modul implicit) ≥ 1,5× eager (eager: AdamW cu `fused=True`, rata float);
- cea mai bună inferență compilată ≥ 2× eager;
- compilarea regională, la rece, de cel puțin 3× mai rapidă decât a modelului întreg, cu pasul în 5%;
- pornirea caldă dintr-un proces nou, cu artefactele mega-cache încărcate, ≤ 25% din cea rece.

Ca în notebook: timpul până la regim (primele trei apeluri ale unei funcții compilate noi, cache
gol), primul apel al modelului amortizării `T(1..3) − 2 · timpul pe pas`, memoria cerută de un pas
(creșterea peste memoria de dinainte) și grupul grafurilor CUDA; inferența se măsoară prima, cu
modurile compilate în ordinea listei, antrenarea după, în ordine inversă.

    python benchmarks/capitolul06.py                  # eager, default, reduce-overhead; apoi regional și mega-cache
    python benchmarks/capitolul06.py --max-autotune   # și cele două moduri max-autotune (pe un H200, multe minute în plus)

Pe bucăți, ca fiecare comandă să încapă într-o limită de timp (pe un H200, cu un cache gol, fiecare
mod max-autotune costă câteva minute la antrenare și aproape două la inferență):

    python benchmarks/capitolul06.py --doar-moduri --parte inferenta --max-autotune --cache-reglare-comun
    python benchmarks/capitolul06.py --doar-moduri --parte antrenare --moduri eager,max-autotune-no-cudagraphs
    python benchmarks/capitolul06.py --doar-moduri --parte antrenare --moduri eager,max-autotune

`--cache-reglare-comun` compilează cele două moduri max-autotune în același cache: al doilea își
găsește acolo reglarea primului, deci primele lui apeluri nu mai sunt o compilare la rece (eticheta lui
are „†”, iar cifra lui se înregistrează sub altă cheie, „…_pornire_cache_comun_s”).

Țintele sunt pentru un GPU (H200, bfloat16); pe procesor, scriptul rulează cu configurația mică a
cursului, iar cifrele nu se compară cu țintele. Cu variabila de mediu a lui `cifre.inregistreaza`
(`CURS_FISIER_CIFRE`) setată, cifrele se înregistrează cu aceleași chei ca în notebook. Tot ce
tipărește se scrie imediat (`flush`), ca o rulare oprită la limita de timp să-și păstreze cifrele.
"""

from __future__ import annotations

import argparse
import copy
import functools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from curs_compilare import cifre  # noqa: E402
from curs_compilare.capitole.cap06_modelul_intreg import (  # noqa: E402
    MODURI,
    DateCiclu,
    compara_moduri,
    compilare_regionala,
    configuratie_capitol,
    configuratie_regionala,
    constructor_pas_antrenare,
    eticheta_mod,
    functie_pentru_mod,
    inregistreaza_comparatia,
    moduri_pentru_mediu,
    note_etichete,
    optimizare_cu_rata_tensor,
    optimizare_eager,
    pune_rata,
)
from curs_compilare.capitole.cap05_cache import are_artefacte_cache, primul_apel_in_proces_nou  # noqa: E402
from curs_compilare.masurare_compilare import incalzeste_compilatorul  # noqa: E402
from curs_compilare.mediu import dimensiune  # noqa: E402
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer, cu_precizie, pierdere, precizie_pentru_mediu  # noqa: E402

tipareste = functools.partial(print, flush=True)

#: Modurile max-autotune, care pot împărți un cache (`--cache-reglare-comun`).
MODURI_AUTOTUNE = ("max-autotune", "max-autotune-no-cudagraphs")


def rand_tinta(nume: str, valoare: str, tinta: str, atinsa: bool) -> None:
    tipareste(f"  {nume:52} {valoare:>14}   ținta {tinta:>8}   {'atinsă' if atinsa else 'NEATINSĂ'}")


def afiseaza_moduri(titlu: str, c) -> None:
    tipareste(f"\n{titlu}: modurile compilate în ordinea {', '.join(c.ordine_compilare)}. {c.pe_pas.motiv_ceas}")
    for mod in c.moduri:
        pas_mib, grup_mib = c.memorie_pas_mib[mod], c.grafuri_cuda_mib.get(mod)
        memorie = "—" if pas_mib is None else cifre.format_octeti(pas_mib * 2**20)
        grup = "—" if grup_mib is None else cifre.format_octeti(grup_mib * 2**20)
        accelerare = "" if mod == "eager" else str(c.pe_pas.accelerare("eager", mod))
        tipareste(f"  {eticheta_mod(c, mod):29} pe pas {cifre.format_timp(c.pas_s(mod)):>9}  "
                  f"apelurile 1–3 {cifre.format_timp(c.pana_la_regim_s(mod)):>9}  primul apel {cifre.format_timp(c.prima_s[mod]):>9}  "
                  f"memoria pasului {memorie:>9}  grafuri CUDA {grup:>9}  {accelerare}")
    for nota in note_etichete(c):
        tipareste(f"  {nota}")
    tipareste("  primul apel = apelurile 1–3 − 2 · timpul pe pas (modelul amortizării); la eager, un pas obișnuit")


def alege_moduri(argumente) -> list[str]:
    """Modurile cerute: lista din `--moduri` (eager e adăugat mereu, ca referință) sau cele ale
    mașinii (`moduri_pentru_mediu`, cu `--max-autotune`)."""
    if not argumente.moduri:
        return moduri_pentru_mediu(max_autotune=argumente.max_autotune)
    cerute = [m.strip() for m in argumente.moduri.split(",") if m.strip()]
    necunoscute = [m for m in cerute if m not in MODURI]
    if necunoscute:
        raise SystemExit(f"Moduri necunoscute: {', '.join(necunoscute)}. Modurile: {', '.join(MODURI)}.")
    return ["eager"] + [m for m in MODURI[1:] if m in cerute]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-autotune", action="store_true", help="și modurile max-autotune (compilări foarte lungi)")
    parser.add_argument("--moduri", default="", help="lista modurilor, despărțite prin virgulă (eager se adaugă mereu)")
    parser.add_argument("--parte", choices=("ambele", "antrenare", "inferenta"), default="ambele",
                        help="doar o parte a comparației modurilor")
    parser.add_argument("--doar-moduri", action="store_true", help="doar comparația modurilor (fără regional și mega-cache)")
    parser.add_argument("--cache-reglare-comun", action="store_true",
                        help="al doilea mod max-autotune refolosește cache-ul (reglarea) primului: nu e o compilare la rece")
    parser.add_argument("--runde", type=int, default=7)
    parser.add_argument("--fara-procese", action="store_true", help="fără măsurarea mega-cache în procese noi")
    argumente = parser.parse_args(argv)
    start = time.perf_counter()
    dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    precizie = precizie_pentru_mediu()
    configuratie = configuratie_capitol()
    tipareste(f"torch {torch.__version__}, {torch.cuda.get_device_name() if dispozitiv.type == 'cuda' else 'CPU'}, "
              f"precizie {str(precizie or torch.float32).removeprefix('torch.')}")
    tipareste(f"încălzirea compilatorului: {cifre.format_timp(incalzeste_compilatorul() or 0.0)}")
    tipareste(f"modelul: {configuratie}")
    moduri = alege_moduri(argumente)
    cache_comun = MODURI_AUTOTUNE if argumente.cache_reglare_comun else ()
    tipareste(f"modurile: {', '.join(moduri)}" + ("; max-autotune într-un cache comun" if cache_comun else ""))

    torch.manual_seed(0)
    model = ReteaTransformer(configuratie).to(dispozitiv)
    date = DateCiclu(configuratie, dispozitiv)
    intrari, tinte = date.lot()
    model_eager = copy.deepcopy(model)
    inferenta = antrenare = None

    # 1. inferența, prima (ca în notebook): logit-urile unui lot mic, ca la servire; modurile în ordinea listei
    if argumente.parte in ("ambele", "inferenta"):
        lot, lungime = dimensiune(gpu=(1, 256), cpu=(1, 64), rapid=(1, 16))
        model.eval()
        logituri = cu_precizie(torch.no_grad()(model), precizie, dispozitiv.type)
        x = intrari[:lot, :lungime].contiguous()
        inferenta = compara_moduri(lambda mod: functie_pentru_mod(logituri, mod, "inferenta", pas_nou=True), x,
                                   moduri=moduri, parte="inferență", runde=argumente.runde, timp_minim_s=1.0,
                                   cache_comun=cache_comun)
        afiseaza_moduri("INFERENȚĂ", inferenta)
        inregistreaza_comparatia(inferenta)

    # 2. antrenarea: pasul complet, același în toate modurile (ca în notebook, secțiunea 3), în ordine inversă
    if argumente.parte in ("ambele", "antrenare"):
        model.train()
        optimizator_eager, pas_eager = optimizare_eager(model_eager, 3e-4)  # fused=True, rata float
        optimizator, pas_optimizator = optimizare_cu_rata_tensor(model, 3e-4)  # rata în tensor, compilat
        calcul_eager = cu_precizie(lambda x, y: pierdere(model_eager, x, y), precizie, dispozitiv.type)
        calcul = cu_precizie(lambda x, y: pierdere(model, x, y), precizie, dispozitiv.type)
        calcul(intrari, tinte).backward()
        pas_optimizator()  # compilează pasul optimizatorului o dată (modul implicit), înaintea măsurătorilor
        pune_rata(optimizator, 3e-5)
        pune_rata(optimizator_eager, 3e-5)
        pasi_eager = constructor_pas_antrenare(calcul_eager, optimizator_eager, pas_eager, intrari, tinte)
        pasi_compilati = constructor_pas_antrenare(calcul, optimizator, pas_optimizator, intrari, tinte)
        antrenare = compara_moduri(lambda mod: pasi_eager(mod) if mod == "eager" else pasi_compilati(mod),
                                   moduri=moduri, parte="antrenare", runde=argumente.runde, timp_minim_s=1.0,
                                   ordine_inversa=True, cache_comun=cache_comun)
        afiseaza_moduri("ANTRENARE", antrenare)
        inregistreaza_comparatia(antrenare)

    regionala = megacache = None
    if not argumente.doar_moduri:
        # 3. compilarea regională
        regionala = compilare_regionala(configuratie_regionala(), precizie, dispozitiv, runde=argumente.runde)
        tipareste(f"\nCOMPILAREA REGIONALĂ ({cifre.cu_substantiv(regionala.nr_straturi, 'strat', 'straturi')})")
        for nume in ("model întreg", "regional"):
            tipareste(f"  {nume:14} rece {cifre.format_timp(regionala.rece_s[nume]):>9}  cald {cifre.format_timp(regionala.cald_s[nume]):>9}  "
                      f"grafuri {regionala.grafuri[nume]}  pe pas {cifre.format_timp(regionala.pe_pas[nume].mediana_s):>9}")
        cifre.inregistreaza("06.regional_rece_accelerare", regionala.accelerare_rece(), "×",
                            "compilarea regională față de modelul întreg, la rece", depinde_de_procesor=True)
        cifre.inregistreaza("06.regional_diferenta_pas", regionala.diferenta_pas() * 100, "%", "pasul regional față de modelul întreg")

        # 4. mega-cache: un proces nou, rece, apoi unul care încarcă artefactele (ambele cu compilatorul încălzit)
        if not argumente.fara_procese and are_artefacte_cache():
            configuratie_proces = dimensiune(
                gpu=ConfiguratieTransformer(vocabular=4096, dim_model=256, nr_capete=4, nr_straturi=4, lungime=256, marime_lot=8),
                cpu=ConfiguratieTransformer(vocabular=512, dim_model=64, nr_capete=2, nr_straturi=2, lungime=32, marime_lot=4),
            )
            dosar = Path(tempfile.mkdtemp(prefix="cache_cap06_"))
            rece = primul_apel_in_proces_nou(dosar / "cache_1", configuratie_proces, salveaza=dosar / "artefacte.bin")
            cald = primul_apel_in_proces_nou(dosar / "cache_2", configuratie_proces, incarca=dosar / "artefacte.bin")
            cald_s = cald.pas_s + (cald.incarcare_s or 0.0)
            megacache = cald_s / rece.pas_s
            tipareste(f"\nMEGA-CACHE: rece {cifre.format_timp(rece.pas_s)}, cu artefactele {cifre.format_timp(cald_s)} "
                      f"(din care încărcarea {cifre.format_timp(cald.incarcare_s or 0.0)}); încălzirea compilatorului, în afara "
                      f"timpilor: {cifre.format_timp(rece.incalzire_s or 0.0)} și {cifre.format_timp(cald.incalzire_s or 0.0)}")
            cifre.inregistreaza("06.megacache_rece_incalzit_s", rece.pas_s, "s",
                                "primul pas de antrenare, proces nou cu compilatorul încălzit, cache gol", depinde_de_procesor=True)
            cifre.inregistreaza("06.megacache_cald_incalzit_s", cald_s, "s",
                                "primul pas, proces nou cu compilatorul încălzit, artefactele încărcate (cu încărcarea)",
                                depinde_de_procesor=True)
            cifre.inregistreaza("06.megacache_incarcare_s", cald.incarcare_s or 0.0, "s", "încărcarea artefactelor mega-cache",
                                depinde_de_procesor=True)

    tipareste("\nȚINTELE" + ("" if dispozitiv.type == "cuda" else " (pe procesor: doar orientativ, țintele sunt pentru H200)"))
    if antrenare is not None and "default" in antrenare.moduri:
        r = antrenare.pe_pas.accelerare("eager", "default")
        rand_tinta("antrenarea compilată (default) față de eager fused", cifre.cu_unitate(r.mediana, "×"), "≥ 1,5×", r.mediana >= 1.5)
    if inferenta is not None and len(inferenta.moduri) > 1:
        cel_mai_bun = min(inferenta.moduri[1:], key=inferenta.pas_s)
        r = inferenta.pe_pas.accelerare("eager", cel_mai_bun)
        rand_tinta(f"cea mai bună inferență ({cel_mai_bun}) față de eager", cifre.cu_unitate(r.mediana, "×"), "≥ 2×", r.mediana >= 2)
    if regionala is not None:
        rand_tinta("compilarea regională la rece, față de modelul întreg", cifre.cu_unitate(regionala.accelerare_rece(), "×"), "≥ 3×",
                   regionala.accelerare_rece() >= 3)
        diferenta = regionala.diferenta_pas()
        rand_tinta("pasul regional față de modelul compilat întreg", ("+" if diferenta >= 0 else "−") + cifre.format_procent(abs(diferenta), 1),
                   "≤ 5%", abs(diferenta) <= 0.05)
    if megacache is not None:
        rand_tinta("pornirea caldă din mega-cache, din cea rece", cifre.format_procent(megacache), "≤ 25%", megacache <= 0.25)
    elif not argumente.doar_moduri:
        tipareste("  mega-cache: nemăsurat")
    tipareste(f"\nTotal: {cifre.format_timp(time.perf_counter() - start)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
