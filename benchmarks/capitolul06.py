"""Țintele capitolului 06 (modelul întreg), măsurate pe mașina curentă, cu același cod ca notebook-ul
(`curs_compilare.antrenare`) și aceeași disciplină de măsurare (`compara`, `timp_compilare`).

Pentru fiecare țintă tipărește valoarea, ținta și dacă e atinsă:
- pasul de antrenare compilat (modul implicit) ≥ 1,5× eager;
- cea mai bună inferență compilată ≥ 2× eager;
- compilarea regională, la rece, de cel puțin 3× mai rapidă decât a modelului întreg, cu pasul în 5%;
- pornirea caldă dintr-un proces nou, cu artefactele mega-cache încărcate, ≤ 25% din cea rece.

    python benchmarks/capitolul06.py                  # eager, default, reduce-overhead
    python benchmarks/capitolul06.py --max-autotune   # și cele două moduri max-autotune (pe un H200, multe minute în plus)

Țintele sunt pentru un GPU (H200, bfloat16); pe procesor, scriptul rulează cu configurația mică a
cursului, iar cifrele nu se compară cu țintele. Cu variabila de mediu a lui `cifre.inregistreaza`
setată, cifrele se înregistrează cu aceleași chei ca în notebook.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from curs_compilare import cifre  # noqa: E402
from curs_compilare.antrenare import (  # noqa: E402
    DateCiclu,
    compara_moduri,
    compilare_regionala,
    configuratie_capitol,
    configuratie_regionala,
    constructor_pas_antrenare,
    functie_pentru_mod,
    moduri_pentru_mediu,
    optimizare_cu_rata_tensor,
)
from curs_compilare.cache_compilare import are_artefacte_cache, primul_apel_in_proces_nou  # noqa: E402
from curs_compilare.masurare_compilare import incalzeste_compilatorul  # noqa: E402
from curs_compilare.mediu import dimensiune  # noqa: E402
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer, cu_precizie, pierdere, precizie_pentru_mediu  # noqa: E402


def rand_tinta(nume: str, valoare: str, tinta: str, atinsa: bool) -> None:
    print(f"  {nume:52} {valoare:>14}   ținta {tinta:>8}   {'atinsă' if atinsa else 'NEATINSĂ'}", flush=True)


def afiseaza_moduri(titlu: str, c) -> None:
    print(f"\n{titlu} ({c.pe_pas.motiv_ceas})")
    for mod in c.moduri:
        memorie = "—" if c.memorie_mib[mod] is None else cifre.format_octeti(c.memorie_mib[mod] * 2**20)
        accelerare = "" if mod == "eager" else str(c.pe_pas.accelerare("eager", mod))
        print(f"  {mod:28} pe pas {cifre.format_timp(c.pas_s(mod)):>9}  primul apel {cifre.format_timp(c.prima_s[mod]):>9}  "
              f"memorie {memorie:>9}  {accelerare}", flush=True)


def inregistreaza_moduri(c, cheie: str, parte: str) -> None:
    for mod in c.moduri:
        cifre.inregistreaza(f"06.moduri_{cheie}_{mod}_ms", c.pe_pas[mod], "ms", f"{parte}, {mod}: timpul pe pas")
        cifre.inregistreaza(f"06.moduri_{cheie}_{mod}_prima_s", c.prima_s[mod], "s", f"{parte}, {mod}: primul apel",
                            depinde_de_procesor=True)
        if c.memorie_mib[mod] is not None:
            cifre.inregistreaza(f"06.moduri_{cheie}_{mod}_memorie_mib", c.memorie_mib[mod], "MiB", f"{parte}, {mod}: vârful memoriei")
        if mod != "eager":
            cifre.inregistreaza(f"06.moduri_{cheie}_{mod}_accelerare", c.pe_pas.accelerare("eager", mod), "×",
                                f"{parte}, {mod} față de eager")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-autotune", action="store_true", help="și modurile max-autotune (compilări foarte lungi)")
    parser.add_argument("--runde", type=int, default=7)
    parser.add_argument("--fara-procese", action="store_true", help="fără măsurarea mega-cache în procese noi")
    argumente = parser.parse_args(argv)
    start = time.perf_counter()
    dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    precizie = precizie_pentru_mediu()
    configuratie = configuratie_capitol()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name() if dispozitiv.type == 'cuda' else 'CPU'}, "
          f"precizie {str(precizie or torch.float32).removeprefix('torch.')}")
    print(f"încălzirea compilatorului: {cifre.format_timp(incalzeste_compilatorul() or 0.0)}")
    print(f"modelul: {configuratie}")
    moduri = moduri_pentru_mediu(max_autotune=argumente.max_autotune)

    # 1. antrenarea: pasul complet, același în toate modurile (ca în notebook, secțiunea 3)
    torch.manual_seed(0)
    model = ReteaTransformer(configuratie).to(dispozitiv)
    date = DateCiclu(configuratie, dispozitiv)
    intrari, tinte = date.lot()
    model_eager = copy.deepcopy(model)
    optimizator_eager, pas_eager = optimizare_cu_rata_tensor(model_eager, 3e-4, compilat=False)
    optimizator, pas_optimizator = optimizare_cu_rata_tensor(model, 3e-4)
    calcul_eager = cu_precizie(lambda x, y: pierdere(model_eager, x, y), precizie, dispozitiv.type)
    calcul = cu_precizie(lambda x, y: pierdere(model, x, y), precizie, dispozitiv.type)
    calcul(intrari, tinte).backward()
    pas_optimizator()  # compilează pasul optimizatorului o dată, înaintea măsurătorilor (în notebook: antrenarea)
    # eager: modelul și optimizatorul lui (ca în notebook); compilat: optimizatorul compilat, pe care Dynamo
    # l-a trecut în modul „capturable”, nu se mai folosește eager
    pasi_eager = constructor_pas_antrenare(calcul_eager, optimizator_eager, pas_eager, intrari, tinte)
    pasi_compilati = constructor_pas_antrenare(calcul, optimizator, pas_optimizator, intrari, tinte)
    antrenare = compara_moduri(lambda mod: pasi_eager(mod) if mod == "eager" else pasi_compilati(mod),
                               moduri=moduri, parte="antrenare", runde=argumente.runde, timp_minim_s=1.0)
    afiseaza_moduri("ANTRENARE", antrenare)
    inregistreaza_moduri(antrenare, "antrenare", "antrenare")

    # 2. inferența: logit-urile unui lot mic, ca la servire (ca în notebook)
    lot, lungime = dimensiune(gpu=(1, 256), cpu=(1, 64), rapid=(1, 16))
    model.eval()
    logituri = cu_precizie(torch.no_grad()(model), precizie, dispozitiv.type)
    x = intrari[:lot, :lungime].contiguous()
    inferenta = compara_moduri(lambda mod: functie_pentru_mod(logituri, mod, "inferenta", pas_nou=True), x,
                               moduri=moduri, parte="inferenta", runde=argumente.runde, timp_minim_s=1.0)
    afiseaza_moduri("INFERENȚĂ", inferenta)
    inregistreaza_moduri(inferenta, "inferenta", "inferență")

    # 3. compilarea regională
    regionala = compilare_regionala(configuratie_regionala(), precizie, dispozitiv, runde=argumente.runde)
    print(f"\nCOMPILAREA REGIONALĂ ({regionala.nr_straturi} straturi)")
    for nume in ("model întreg", "regional"):
        print(f"  {nume:14} rece {cifre.format_timp(regionala.rece_s[nume]):>9}  cald {cifre.format_timp(regionala.cald_s[nume]):>9}  "
              f"grafuri {regionala.grafuri[nume]}  pe pas {cifre.format_timp(regionala.pe_pas[nume].mediana_s):>9}")
    cifre.inregistreaza("06.regional_rece_accelerare", regionala.accelerare_rece(), "×",
                        "compilarea regională față de modelul întreg, la rece", depinde_de_procesor=True)
    cifre.inregistreaza("06.regional_diferenta_pas", regionala.diferenta_pas() * 100, "%", "pasul regional față de modelul întreg")

    # 4. mega-cache: un proces nou, rece, apoi unul care încarcă artefactele
    megacache = None
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
        print(f"\nMEGA-CACHE: rece {cifre.format_timp(rece.pas_s)}, cu artefactele {cifre.format_timp(cald_s)} "
              f"(din care încărcarea {cifre.format_timp(cald.incarcare_s or 0.0)})")
        cifre.inregistreaza("06.megacache_rece_s", rece.pas_s, "s", "primul pas de antrenare, proces nou, cache gol", depinde_de_procesor=True)
        cifre.inregistreaza("06.megacache_cald_s", cald_s, "s", "primul pas, proces nou, artefactele încărcate (cu încărcarea)",
                            depinde_de_procesor=True)

    print("\nȚINTELE" + ("" if dispozitiv.type == "cuda" else " (pe procesor: doar orientativ, țintele sunt pentru H200)"))
    r = antrenare.pe_pas.accelerare("eager", "default")
    rand_tinta("antrenarea compilată (default) față de eager", cifre.cu_unitate(r.mediana, "×"), "≥ 1,5×", r.mediana >= 1.5)
    cel_mai_bun = min(inferenta.moduri[1:], key=inferenta.pas_s)
    r = inferenta.pe_pas.accelerare("eager", cel_mai_bun)
    rand_tinta(f"cea mai bună inferență ({cel_mai_bun}) față de eager", cifre.cu_unitate(r.mediana, "×"), "≥ 2×", r.mediana >= 2)
    rand_tinta("compilarea regională la rece, față de modelul întreg", cifre.cu_unitate(regionala.accelerare_rece(), "×"), "≥ 3×",
               regionala.accelerare_rece() >= 3)
    diferenta = regionala.diferenta_pas()
    rand_tinta("pasul regional față de modelul compilat întreg", ("+" if diferenta >= 0 else "−") + cifre.format_procent(abs(diferenta), 1),
               "≤ 5%", abs(diferenta) <= 0.05)
    if megacache is not None:
        rand_tinta("pornirea caldă din mega-cache, din cea rece", cifre.format_procent(megacache), "≤ 25%", megacache <= 0.25)
    else:
        print("  mega-cache: nemăsurat")
    print(f"\nTotal: {cifre.format_timp(time.perf_counter() - start)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
