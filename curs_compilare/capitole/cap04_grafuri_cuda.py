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
  lui `reduce-overhead` (*CUDA Graph Trees*) la fiecare apel: încălzire, capturare, reluare.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

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
    #: Pe GPU: partea din timpul unei bucle de apeluri în care GPU-ul a lucrat, din aceeași urmă
    #: a profilerului (`masurare.ocupare_gpu`); None pe procesor.
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
