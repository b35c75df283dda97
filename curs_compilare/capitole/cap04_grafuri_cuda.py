"""Capitolul 04: costul lansărilor și CUDA Graphs (grafuri CUDA).

Un model făcut din multe straturi mici, la un lot (*batch*) mic, nu e limitat nici de memorie,
nici de calcul: e limitat de ospătar. Procesorul (Python, PyTorch, driverul CUDA) are nevoie de
câteva microsecunde ca să lanseze fiecare kernel, iar kernel-urile mici se termină mai repede
decât sosește următoarea comandă. Aici sunt:

- `stiva_mica(adancime, latime)` — modelul capitolului: straturi `Linear` + GELU, în mod `eval`;
- `cost_lansari(functie, x)` — timpul pe apel văzut de program (ceasul de perete) față de timpul
  în care unitatea de calcul chiar a lucrat (suma duratelor kernel-urilor din `torch.profiler`);
- `latente_pe_loturi(model, loturi)` — latența eager și cea compilată, pe mai multe loturi,
  cu o compilare statică (`dynamic=False`) pentru fiecare lot, ca măsurătoarea să fie cinstită;
- `stare_grafuri()` și `fazele_apelurilor(functie, x)` — ce face mecanismul de grafuri CUDA al
  lui `reduce-overhead` (*CUDA Graph Trees*) la fiecare apel: încălzire, capturare, reluare;
- `memorie_rezervata_mib()` și `varf_memorie_mib(functie, x)` — memoria ținută de grafuri și
  vârful unui apel eager, pe GPU.

La final stau uneltele care țin contabilitatea capitolului departe de celulele lui: tabelele și
graficele (`tabel_loturi`, `grafic_loturi`...), propozițiile care diferă între GPU și procesor
(`propozitii_loturi`, `nota_reduce_overhead_pe_cpu`...) și cifrele pentru raportul de
referință (`inregistreaza_costul_eager`, `inregistreaza_loturile`...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from .. import cifre
from ..cifre import cu_substantiv, cu_unitate, format_numar, format_octeti, format_procent, format_timp
from ..concluzii import concluzie_accelerare
from ..inspectie import limita_recompilari
from ..masurare_compilare import Compilari, compara_compilari
from ..masurare import EvenimentKernel, Masuratoare, compara, cronologie_kerneluri, masoara, ocupare_gpu, timp_prima_apelare

__all__ = [
    "stiva_mica",
    "CostLansari",
    "cost_lansari",
    "compileaza_static",
    "compilari_implicit_si_reduce_overhead",
    "latente_pe_loturi",
    "StareGrafuri",
    "stare_grafuri",
    "FazaApel",
    "fazele_apelurilor",
    "rezumat_cost_lansari",
    "tabel_primele_apeluri",
    "concluzie_modul_implicit",
    "nota_reduce_overhead_pe_cpu",
    "tabel_loturi",
    "grafic_loturi",
    "loturi_fara_castig",
    "propozitii_loturi",
    "memorie_rezervata_mib",
    "varf_memorie_mib",
    "tabel_etape_memorie",
    "grafic_etape_memorie",
    "concluzii_memorie",
    "inregistreaza_costul_eager",
    "inregistreaza_graful_manual",
    "inregistreaza_lotul_1",
    "inregistreaza_loturile",
    "inregistreaza_memoria",
]

#: Numele stărilor arborelui de grafuri CUDA (`ExecutionState` din torch._inductor.cudagraph_trees),
#: spuse în cuvintele capitolului.
NUME_STARI = {
    "NONE": "fără graf",
    "WARMUP": "încălzire (rulează fără graf)",
    "RECORDING": "capturare (înregistrează graful)",
    "EXECUTION": "reluare (graful capturat)",
}


def stiva_mica(adancime: int = 16, latime: int = 256, dispozitiv=None, samanta: int = 0) -> nn.Sequential:
    """`adancime` straturi `Linear(latime, latime)`, fiecare urmat de GELU, în mod `eval`.
    La un lot mic, fiecare strat înseamnă două kernel-uri minuscule."""
    generator_vechi = torch.random.get_rng_state()
    torch.manual_seed(samanta)
    straturi: list[nn.Module] = []
    for _ in range(adancime):
        straturi += [nn.Linear(latime, latime), nn.GELU()]
    model = nn.Sequential(*straturi).eval()
    torch.random.set_rng_state(generator_vechi)
    return model.to(dispozitiv) if dispozitiv is not None else model


@dataclass(frozen=True)
class CostLansari:
    """Unde se duce timpul unui apel: cât durează pentru program și cât a lucrat efectiv
    unitatea de calcul (GPU-ul sau, pe CPU, operațiile însele). `kerneluri` e cronologia din
    profiler, gata de desenat cu `grafice.grafic_cronologie`."""

    perete_s: float
    timp_kerneluri_s: float
    numar_kerneluri: int
    kerneluri: tuple[EvenimentKernel, ...] = field(default=(), repr=False)
    #: Pe GPU: partea din timpul unei bucle de apeluri în care GPU-ul a lucrat: lucrul din urma
    #: profilerului, durata apelului fără profiler (`masurare.ocupare_gpu`); None pe procesor.
    ocupare_gpu: float | None = None

    @property
    def perete_us(self) -> float:
        return self.perete_s * 1e6

    @property
    def kerneluri_us(self) -> float:
        return self.timp_kerneluri_s * 1e6

    @property
    def perete_pe_kernel_us(self) -> float:
        """Timpul de perete împărțit la numărul de kernel-uri: cât costă, în medie, fiecare."""
        return self.perete_us / max(self.numar_kerneluri, 1)

    @property
    def kernel_mediu_us(self) -> float:
        """Cât a lucrat, în medie, un kernel."""
        return self.kerneluri_us / max(self.numar_kerneluri, 1)

    @property
    def ocupare(self) -> float:
        """Ce parte din timpul apelului a lucrat unitatea de calcul (0,1 = 10%). Pe GPU, din urma
        unei bucle de apeluri (`ocupare_gpu`: lucrul și fereastra măsurate împreună, kernel-urile
        suprapuse numărate o dată); pe procesor, timpul operațiilor față de timpul de perete."""
        if self.ocupare_gpu is not None:
            return self.ocupare_gpu
        return min(1.0, self.timp_kerneluri_s / self.perete_s) if self.perete_s else 0.0


def cost_lansari(functie, *argumente, timp_minim_s: float = 0.2) -> CostLansari:
    """Măsoară timpul de perete pe apel (cu `masoara(..., ceas="perete")`: aici contează
    tocmai timpul procesorului) și, dintr-o rulare sub `torch.profiler`, kernel-urile
    (cronologia lor), numărul lor și suma duratelor. Pe GPU, ocuparea vine dintr-o buclă de
    apeluri profilată (`ocupare_gpu`), nu din suma kernel-urilor unui apel împărțită la
    mediana altei măsurători."""
    perete = masoara(functie, *argumente, timp_minim_s=timp_minim_s, ceas="perete")
    kerneluri = cronologie_kerneluri(functie, *argumente)
    ocupare = ocupare_gpu(functie, *argumente, estimare_s=perete.mediana_s) if perete.pe_gpu else None
    return CostLansari(
        perete_s=perete.mediana_s,
        timp_kerneluri_s=sum(k.durata_us for k in kerneluri) / 1e6,
        numar_kerneluri=len(kerneluri),
        kerneluri=tuple(kerneluri),
        ocupare_gpu=None if ocupare is None else ocupare.parte,
    )


def compileaza_static(model, mod: str | None = None):
    """`torch.compile(model, mode=mod, dynamic=False)`: un graf pentru exact forma primită."""
    return torch.compile(model, mode=mod, dynamic=False)


def compilari_implicit_si_reduce_overhead(model, x, invers: bool = False, repetari: int = 2) -> Compilari:
    """Compilează `model` în modul implicit și cu `mode="reduce-overhead"` și măsoară prima
    apelare a fiecăruia (`compara_compilari`: compilatorul încălzit, cache gol, ordine
    alternată). După primul apel, fiecare variantă mai e apelată de două ori, cronometrat: la
    `reduce-overhead`, primul apel a compilat și a încălzit (a rulat fără graf), al doilea
    capturează graful CUDA, al treilea e prima reluare.
    `invers=True` începe cu `reduce-overhead` (pentru testul care arată că ordinea nu schimbă
    rezultatul)."""
    variante = {"modul implicit": (model, {}), "reduce-overhead": (model, {"mode": "reduce-overhead"})}
    if invers:
        variante = dict(reversed(list(variante.items())))
    return compara_compilari(variante, x, repetari=repetari, apelari_dupa=2)


def _latime(model: nn.Module) -> int:
    return next(m for m in model.modules() if isinstance(m, nn.Linear)).in_features


def latente_pe_loturi(
    model: nn.Module,
    loturi: list[int],
    moduri: tuple[str, ...] = ("reduce-overhead",),
    timp_minim_s: float = 0.1,
) -> dict[str, list[Masuratoare]]:
    """Latența pe apel (ceasul de perete: costul lansărilor e chiar timp de procesor) a
    modelului eager și a fiecărui mod de compilare din `moduri`, pentru fiecare lot din
    `loturi`; la fiecare lot, variantele sunt măsurate intercalat, în runde (`compara`).

    Pentru fiecare lot și fiecare mod, modelul se compilează din nou, static (`dynamic=False`):
    altfel, de la al doilea lot, compilarea implicită ar trece la forme dinamice și ai măsura
    alt kernel. Cât ține măsurătoarea, limita de recompilări e ridicată. Ieșirea compilată se
    compară cu cea eager înainte de a fi măsurată."""
    dispozitiv = next(model.parameters()).device
    latime = _latime(model)
    rezultate: dict[str, list[Masuratoare]] = {"eager": [], **{m: [] for m in moduri}}
    with torch.no_grad(), limita_recompilari(8 + 2 * len(loturi) * len(moduri)):
        for lot in loturi:
            x = torch.randn(lot, latime, device=dispozitiv)
            asteptat = model(x)
            variante = {"eager": model}
            for mod in moduri:
                compilat = compileaza_static(model, mod)
                for _ in range(3):  # la reduce-overhead: 1 = compilare + încălzire, 2 = capturare, 3 = prima reluare
                    compilat(x)
                torch.testing.assert_close(compilat(x).clone(), asteptat, rtol=1e-3, atol=1e-4)
                variante[mod] = compilat
            comparatie = compara(variante, x, timp_minim_s=timp_minim_s, ceas="perete")
            for nume in variante:
                rezultate[nume].append(comparatie[nume])
    return rezultate


@dataclass(frozen=True)
class StareGrafuri:
    """Starea mecanismului de grafuri CUDA al lui `reduce-overhead` pe GPU-ul curent: ce a
    făcut ultimul apel (`stare`: „WARMUP”, „RECORDING”, „EXECUTION” sau „NONE”) și câte grafuri
    CUDA are capturate. `stare` e None când nu există niciun mecanism (pe CPU, sau înainte de
    primul apel compilat cu `reduce-overhead`)."""

    stare: str | None
    numar_grafuri: int

    @property
    def descriere(self) -> str:
        if self.stare is None:
            return "fără grafuri CUDA"
        return NUME_STARI.get(self.stare, self.stare.lower())


def stare_grafuri() -> StareGrafuri:
    """Citește starea arborelui de grafuri CUDA (`torch._inductor.cudagraph_trees`) de pe GPU-ul
    curent: starea ultimului apel și numărul de grafuri capturate (nodurile arborelui). Pe o
    mașină fără GPU, sau dacă interfața internă s-a schimbat, întoarce `StareGrafuri(None, 0)`."""
    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return StareGrafuri(None, 0)
    try:
        from torch._inductor import cudagraph_trees

        manager = cudagraph_trees.get_manager(torch.cuda.current_device(), create_if_none_exists=False)
        if manager is None:
            return StareGrafuri(None, 0)
        noduri = [nod for radacini in (manager.roots or {}).values() for nod in radacini]
        numar = 0
        while noduri:
            nod = noduri.pop()
            numar += 1
            noduri.extend(copil for copii in nod.children.values() for copil in copii)
        return StareGrafuri(manager.path_state.name, numar)
    except (ImportError, AttributeError, TypeError):
        return StareGrafuri(None, 0)


@dataclass(frozen=True)
class FazaApel:
    """Un apel al unei funcții compilate: cât a durat (ceasul de perete, cu sincronizare) și
    starea grafurilor CUDA imediat după el."""

    numar: int
    timp_s: float
    stare: StareGrafuri


def fazele_apelurilor(functie, *argumente, apeluri: int = 4) -> list[FazaApel]:
    """Apelează `functie(*argumente)` de `apeluri` ori și notează, pentru fiecare apel, durata și
    starea grafurilor CUDA de după el. Pentru o funcție proaspăt compilată cu
    `mode="reduce-overhead"`, pe un GPU, se vede ordinea fazelor: apelul 1 compilează și
    încălzește (rulează codul compilat fără graf), apelul 2 capturează graful, apelul 3 e prima
    reluare. Pe CPU, starea rămâne „fără grafuri CUDA”."""
    return [FazaApel(numar, timp_prima_apelare(functie, *argumente), stare_grafuri())
            for numar in range(1, apeluri + 1)]


# ---------------------------------------------------------------------------------------------
# Ce tipărește, ce desenează și ce înregistrează capitolul: tabelele, graficele, propozițiile
# care diferă între GPU și procesor și cifrele pentru raportul de referință
# ---------------------------------------------------------------------------------------------


def rezumat_cost_lansari(cost: CostLansari, are_gpu: bool) -> str:
    """Unde se duce timpul unui apel (secțiunea 2): câte kernel-uri, timpul apelului și timpul
    în care s-a lucrat efectiv, în total și pe kernel; pe GPU, și partea din timp în care GPU-ul
    a lucrat, iar pe CPU, de ce cele două timpuri nu se compară direct."""
    randuri = [
        f"{cu_substantiv(cost.numar_kerneluri, 'kernel', 'kernel-uri')} pe apel",
        f"timpul unui apel (timp real):        {format_timp(cost.perete_s):>10} = {format_timp(cost.perete_pe_kernel_us / 1e6):>9} pe kernel",
        f"timpul în care s-a lucrat efectiv:   {format_timp(cost.timp_kerneluri_s):>10} = {format_timp(cost.kernel_mediu_us / 1e6):>9} pe kernel",
    ]
    if are_gpu:
        randuri.append(f"GPU-ul a lucrat {format_procent(cost.ocupare)} din timpul unei bucle de apeluri")
    else:
        randuri.append("(pe CPU, durata operațiilor vine din profiler, care le încetinește: nu o compara direct cu timpul apelului)")
    return "\n".join(randuri)


def tabel_primele_apeluri(compilari: Compilari, moduri=("modul implicit", "reduce-overhead")) -> str:
    """Primul apel (compilarea) al fiecărui mod, cu timpii fiecărei repetări, și durata
    apelurilor 2 și 3 (la `reduce-overhead`: capturarea, apoi prima reluare)."""
    randuri = []
    for mod in moduri:
        m = compilari[mod]
        randuri.append(f"{mod:16s} primul apel (compilarea): {format_timp(m.mediana_s)} "
                       f"(de {len(m.mediane_runde)} ori: {', '.join(format_timp(t) for t in m.mediane_runde)}); "
                       f"apelurile 2 și 3: {', '.join(format_timp(t) for t in compilari.apelari_urmatoare[mod])}")
    return "\n".join(randuri)


def concluzie_modul_implicit(accelerare, are_gpu: bool) -> str:
    """Propoziția despre modul implicit față de eager, la lot 1 (`accelerare` = eager /
    compilat). Pe GPU, dacă e mai lent, spune și de ce: produsele de matrice rămân apeluri de
    bibliotecă, iar învelișul codului compilat mai adaugă ceva; pe CPU lasă cauza în seama
    lui `concluzie_accelerare`."""
    cauza = ("la lot 1, produsele de matrice rămân apeluri de bibliotecă separate, deci lansările abia scad, "
             "iar învelișul codului compilat (gărzile, apelul Python) mai adaugă ceva" if are_gpu else None)
    return concluzie_accelerare(accelerare, "Modul implicit", "eager", feminin=False, cauza=cauza)


def nota_reduce_overhead_pe_cpu(ro_fata_de_implicit) -> str:
    """Pe CPU, `reduce-overhead` și modul implicit rulează același cod compilat, fără grafuri
    CUDA: propoziția spune dacă raportul lor (`ro_fata_de_implicit` = implicit /
    reduce-overhead) e în zgomot și de unde vine o eventuală diferență."""
    raport = f"(raportul lor: {cu_unitate(ro_fata_de_implicit.mediana, '×')}; {ro_fata_de_implicit.interval()})"
    if ro_fata_de_implicit.in_zgomot:
        text = (f'Pe CPU, "reduce-overhead" și modul implicit rulează același cod compilat, fără grafuri CUDA, și durează la fel '
                f"{raport}.")
    else:
        text = (f'Pe CPU, "reduce-overhead" și modul implicit rulează același cod compilat, fără grafuri CUDA, dar aici ies diferit '
                f"{raport}: diferența vine din mașină (alte programe, frecvența procesorului), nu din cod; repetă măsurarea.")
    return text + " Ce diferă față de eager vine din codul generat de Inductor, nu dintr-un graf CUDA."


def tabel_loturi(loturi: list[int], latente: dict[str, list[Masuratoare]], rapoarte: list) -> str:
    """Tabelul secțiunii 5: pentru fiecare lot, latența eager și cu `reduce-overhead`, accelerarea
    și intervalul rundelor din mijloc (20–80%), cel după care concluziile spun „în limita
    zgomotului”."""
    randuri = [f"{'lot':>6} {'eager':>11} {'reduce-overhead':>16} {'accelerare':>11}   runde (20–80%)"]
    for lot, e, r, a in zip(loturi, latente["eager"], latente["reduce-overhead"], rapoarte):
        jos, sus = a.capete_verdict
        randuri.append(f"{format_numar(lot):>6} {format_timp(e.mediana_s):>11} {format_timp(r.mediana_s):>16} "
                       f"{cu_unitate(a.mediana, '×'):>11}   {cu_unitate(jos, '×')} – {cu_unitate(sus, '×')}")
    return "\n".join(randuri)


def grafic_loturi(loturi: list[int], latente: dict[str, list[Masuratoare]], rapoarte: list):
    """Cele două grafice ale secțiunii 5: latența fiecărei variante pe lot (axe logaritmice) și
    accelerarea lui `reduce-overhead` față de eager, cu intervalul rundelor din mijloc ca bare
    de eroare. Întoarce figura; o afișezi cu `grafice.arata()`."""
    import matplotlib.pyplot as plt

    accelerari = [r.mediana for r in rapoarte]
    jos_sus = [r.capete_verdict for r in rapoarte]
    fig, (ax_timp, ax_acc) = plt.subplots(1, 2, figsize=(12, 4))
    for nume, lista in latente.items():
        ax_timp.plot(loturi, [m.mediana_us for m in lista], marker="o", label=nume)
    ax_timp.set(xscale="log", yscale="log", xlabel="lot (exemple pe apel)", ylabel="latență pe apel (µs)", title="Latența")
    ax_timp.legend()
    ax_acc.errorbar(loturi, accelerari, yerr=[[a - jos for a, (jos, _) in zip(accelerari, jos_sus)], [sus - a for a, (_, sus) in zip(accelerari, jos_sus)]],
                    marker="o", color="tab:green", capsize=3)
    ax_acc.axhline(1, color="black", linewidth=0.8)
    ax_acc.set(xscale="log", xlabel="lot (exemple pe apel)", ylabel="accelerare (×)", title='"reduce-overhead" față de eager')
    for ax in (ax_timp, ax_acc):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def _numeste_loturi(lista: list[int]) -> str:
    """„lotul 16” sau „loturile 16, 256”."""
    return ("lotul " if len(lista) == 1 else "loturile ") + ", ".join(format_numar(lot) for lot in lista)


def loturi_fara_castig(loturi: list[int], rapoarte: list, prag: float) -> list[int]:
    """Loturile la care `reduce-overhead` câștigă mai puțin de `prag` (mediana raportului)."""
    return [lot for lot, r in zip(loturi, rapoarte) if r.mediana < prag]


def propozitii_loturi(loturi: list[int], rapoarte: list, prag: float, are_gpu: bool) -> str:
    """Ce spun măsurătorile pe loturi (`rapoarte`: eager / `reduce-overhead`, câte unul pe lot):
    verdictul la cel mai mic lot, apoi unde câștigul trece de `prag` și unde scade sub el — pe
    toate loturile, pe niciunul, doar pe unele (o accelerare care nu scade cu lotul vine din
    zgomot) sau până la un lot, cu loturile la care urcă din nou. Doar pe GPU, un câștig pe
    toate loturile e pus pe seama lansărilor."""
    prag_text = cu_unitate(prag, "×")
    fara_castig = loturi_fara_castig(loturi, rapoarte, prag)
    cu_castig = [lot for lot in loturi if lot not in fara_castig]
    randuri = [f"La lotul {format_numar(loturi[0])}, "
               + concluzie_accelerare(rapoarte[0], '"reduce-overhead"', "eager", feminin=False)]
    if len(loturi) == 1:
        randuri.append(f"Ai măsurat un singur lot: acolo, câștigul e {'sub' if fara_castig else 'de cel puțin'} {prag_text}.")
    elif not fara_castig:
        randuri.append(f"Câștigul e de cel puțin {prag_text} pe toate loturile măsurate, până la lotul {format_numar(loturi[-1])}"
                       + (": pe GPU-ul tău, la aceste loturi, calculul nu acoperă încă costul lansărilor." if are_gpu else "."))
    elif not cu_castig:
        randuri.append(f"Câștigul e sub {prag_text} pe toate loturile măsurate, de la lotul {format_numar(loturi[0])} "
                       f"la lotul {format_numar(loturi[-1])}: pe mașina ta, reduce-overhead nu merită la niciunul dintre ele.")
    elif fara_castig[0] == loturi[0]:
        randuri.append(f"Câștigul e sub {prag_text} chiar de la cel mai mic lot ({format_numar(loturi[0])}); "
                       f"doar la {_numeste_loturi(cu_castig)} trece de {prag_text}: o accelerare care nu scade cu lotul vine, "
                       "probabil, din zgomotul măsurătorii.")
    else:
        primul = fara_castig[0]
        castig_pana_la = loturi[:loturi.index(primul)]
        randuri.append(f"Câștigul e de cel puțin {prag_text} "
                       + (f"doar la lotul {format_numar(loturi[0])}" if len(castig_pana_la) == 1
                          else f"de la lotul {format_numar(loturi[0])} până la lotul {format_numar(castig_pana_la[-1])}")
                       + f" și scade sub {prag_text} prima dată la lotul {format_numar(primul)}.")
        revin = [lot for lot in cu_castig if lot > primul]
        if revin:
            randuri.append(f"La {_numeste_loturi(revin)}, câștigul urcă din nou peste prag: "
                           "măsurătorile au zgomot, iar accelerarea nu scade neapărat lot după lot.")
    return "\n".join(randuri)


def memorie_rezervata_mib() -> float:
    """Memoria GPU rezervată de PyTorch, în MiB, după `torch.cuda.empty_cache()`, care îi
    înapoiază driverului tot ce nu mai e folosit: ce rămâne e memorie ținută încă de cineva.
    Doar pe GPU."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return torch.cuda.memory_reserved() / 2**20


def varf_memorie_mib(functie, *argumente) -> float:
    """Cât a alocat în plus, la vârf, un apel `functie(*argumente)` pe GPU, în MiB: vârful
    alocărilor din timpul apelului față de memoria alocată dinaintea lui. Doar pe GPU."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    baza = torch.cuda.memory_allocated()
    functie(*argumente)
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - baza) / 2**20


def tabel_etape_memorie(etape: dict[str, float]) -> str:
    """Memoria rezervată după fiecare etapă a experimentului cu memoria grafurilor, în MiB."""
    randuri = [f"{'după':32s} {'rezervat':>10}"]
    for nume, rezervat in etape.items():
        randuri.append(f"{nume:32s} {cu_unitate(rezervat, 'MiB', 0):>10}")
    return "\n".join(randuri)


def grafic_etape_memorie(etape: dict[str, float]):
    """Bare orizontale: memoria rezervată după fiecare etapă, de sus în jos. Întoarce figura."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.barh(list(etape), list(etape.values()), color="tab:purple")
    ax.invert_yaxis()
    ax.set_xlabel("memorie GPU rezervată de PyTorch (MiB)")
    ax.set_title("Memoria rezervată, după empty_cache, etapă cu etapă")
    fig.tight_layout()
    return fig


def concluzii_memorie(varfuri_eager: dict[int, float], grup_dupa_primul: float, grup_dupa_toate: float,
                      tinuta: float, numar_grafuri: int) -> str:
    """Ce arată etapele memoriei: vârfurile eager ale loturilor (și suma lor), cât țin grafurile
    după primul graf și după toate, dacă grafurile următoare au refolosit grupul primului și cât
    au ținut grafurile până la `torch._dynamo.reset()`. Textul începe cu un rând gol."""
    randuri = [
        f"\nVârfurile eager ale celor trei loturi: {', '.join(cu_unitate(v, 'MiB', 0) for v in varfuri_eager.values())}"
        f" (suma: {cu_unitate(sum(varfuri_eager.values()), 'MiB', 0)}); intrarea lotului 8192: "
        f"{format_octeti(8192 * 1024 * 4)}",
        f"Grafurile țin {cu_unitate(grup_dupa_primul, 'MiB', 0)} după primul graf "
        f"și {cu_unitate(grup_dupa_toate, 'MiB', 0)} după toate cele {cu_substantiv(numar_grafuri, 'graf', 'grafuri')}.",
    ]
    if grup_dupa_toate <= 1.1 * grup_dupa_primul:
        randuri.append("Grafurile următoare, mai mici, n-au cerut memorie nouă: au refolosit grupul primului.")
    else:
        randuri.append("Grafurile următoare au cerut memorie nouă: pe GPU-ul tău, grupul a crescut și după primul graf.")
    randuri.append(f"Memorie ținută de grafuri până la torch._dynamo.reset(): {cu_unitate(tinuta, 'MiB', 0)}")
    return "\n".join(randuri)


# Cifrele capitolului pentru raportul de referință (`cifre.inregistreaza`), toate măsurate pe GPU
# (pe procesor nu există grafuri CUDA), cu aceleași chei, unități și descrieri ca înainte.


def inregistreaza_costul_eager(cost: CostLansari, adancime: int) -> None:
    """Stiva la lot 1, eager: timpul unui apel, timpul kernel-urilor și ocuparea GPU-ului."""
    cifre.inregistreaza("04.eager_perete_us", cost.perete_us, "µs", f"stiva de {adancime} straturi la lot 1, eager: timpul unui apel", depinde_de_procesor=True)
    cifre.inregistreaza("04.eager_kerneluri_us", cost.kerneluri_us, "µs", f"stiva de {adancime} straturi la lot 1, eager: timpul kernel-urilor pe GPU")
    cifre.inregistreaza("04.eager_ocupare", 100 * cost.ocupare, "%", "ocuparea GPU-ului la lot 1, eager", depinde_de_procesor=True)


def inregistreaza_graful_manual(graf: Masuratoare, accelerare) -> None:
    """Graful CUDA capturat de mână, la lot 1: timpul unui apel și accelerarea față de eager."""
    cifre.inregistreaza("04.graf_manual_perete_us", graf, "µs", "graful CUDA capturat de mână, lot 1: timpul unui apel")
    cifre.inregistreaza("04.graf_manual_accelerare", accelerare, "×", "graful CUDA capturat de mână față de eager, lot 1")


def inregistreaza_lotul_1(reduce_overhead: Masuratoare, implicit: Masuratoare, accelerare_ro, compilari: Compilari,
                          adancime: int) -> None:
    """Lot 1: timpul unui apel cu `reduce-overhead` și în modul implicit, accelerarea lui
    `reduce-overhead` față de eager și primul apel (cache gol) al fiecărui mod."""
    cifre.inregistreaza("04.reduce_overhead_lot1_us", reduce_overhead, "µs", "reduce-overhead, lot 1: timpul unui apel")
    cifre.inregistreaza("04.reduce_overhead_lot1_accelerare", accelerare_ro, "×", "reduce-overhead față de eager, lot 1")
    cifre.inregistreaza("04.implicit_lot1_us", implicit, "µs", "compilat în modul implicit, lot 1: timpul unui apel")
    for mod in ("modul implicit", "reduce-overhead"):
        cifre.inregistreaza(f"04.prima_apelare_{mod.replace(' ', '_')}_s", compilari[mod], "s",
                            f"stiva de {adancime} straturi, {mod}: primul apel (cache gol)")


def inregistreaza_loturile(loturi: list[int], rapoarte: list, prag: float, adancime: int, latime: int) -> None:
    """Secțiunea 5: accelerarea la lotul 1 și la cel mai mare lot și, dacă există, primul lot
    (nu cel mai mic) la care `reduce-overhead` câștigă mai puțin de `prag`."""
    cifre.inregistreaza("04.loturi_accelerare_lot1", rapoarte[0], "×", f"reduce-overhead față de eager, stiva {adancime}×{latime}, lot 1")
    cifre.inregistreaza("04.loturi_accelerare_lot_maxim", rapoarte[-1], "×", f"reduce-overhead față de eager, lot {loturi[-1]}")
    fara_castig = loturi_fara_castig(loturi, rapoarte, prag)
    if fara_castig and fara_castig[0] != loturi[0]:
        cifre.inregistreaza("04.loturi_primul_fara_castig", fara_castig[0], "exemple",
                            f"primul lot la care reduce-overhead câștigă mai puțin de {cu_unitate(prag, '×')}", depinde_de_procesor=True)


def inregistreaza_memoria(tinuta: float, grup_dupa_primul: float, varf_eager_8192: float) -> None:
    """Memoria ținută de cele trei grafuri, cea ținută după primul și vârful eager al lotului 8192."""
    cifre.inregistreaza("04.memorie_grafuri_mib", tinuta, "MiB", "memoria rezervată ținută de trei grafuri CUDA (loturi 8192, 4096, 2048, stiva 16×1024)")
    cifre.inregistreaza("04.memorie_primul_graf_mib", grup_dupa_primul, "MiB", "memoria ținută de grafuri după primul graf (lot 8192)")
    cifre.inregistreaza("04.memorie_varf_eager_8192_mib", varf_eager_8192, "MiB", "vârful de memorie al lotului 8192 rulat eager")
