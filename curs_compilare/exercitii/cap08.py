"""Verificările exercițiilor din capitolul 08 — compilarea când un GPU nu ajunge: DDP și FSDP2.

- exercițiul 1: un `nn.Sequential` pus sub DDP care chiar se compilează (nu doar în aparență);
- exercițiul 2: câte grafuri face DDPOptimizer, prezis din mărimile straturilor;
- exercițiul 3: FSDP2 compilat bloc cu bloc, fără recompilarea provocată de intrarea primului bloc.

Exercițiile 1 și 3 rulează codul tău în două procese (ranguri) cu `torch.distributed` (gloo, pe
procesor, pe orice mașină: se verifică mecanismul, nu viteza), pornite de
`cap08_ranguri.ruleaza_pe_ranguri`: funcția ta ajunge în ele prin valoare (cu cloudpickle),
chiar dacă e scrisă într-o celulă. Fiecare rang primește alte date; verificarea compară ce dă
codul tău cu un model de referință, fără DDP și fără compilare, și numără ce a compilat Dynamo
cu backend-ul pe care ți-l dă (un numărător: vede fiecare graf și fiecare rulare a lui). Un rang
care se blochează (de exemplu, o operație colectivă chemată doar într-un rang) e oprit după o
limită de timp, iar mesajul spune ce s-a întâmplat. Intrările se aleg la întâmplare la fiecare rulare
(`CURS_SEMINTA=…` le fixează).
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import operator
import random
import textwrap

import torch
import torch.nn as nn

from ..capitole import cap08_distribuit as distribuit
from ..capitole.cap08_ranguri import EroareRanguri, ruleaza_pe_ranguri
from ..cifre import cu_substantiv, format_numar
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    configuratia_compilatorului,
    cu_originalul,
    descrie_garda,
    explica_exceptie,
    generator_aleator,
    goleste_dynamo,
    schimbari_configuratie,
    traduce_mesaj,
    verificare,
)
from ..inspectie import NumaratorCompilari, motive_recompilare

__all__ = ["exercitiul_1", "exercitiul_2", "exercitiul_3", "LIMITA_RANGURI_S"]

#: Cât are voie să dureze rularea în ranguri a unei verificări (pornirea proceselor, importul lui
#: torch, compilarea și pașii). Un rang blocat e oprit după atât.
LIMITA_RANGURI_S = 150.0
#: Cât are voie să dureze un apel al codului tău în rang (pregătirea modelului, un pas).
LIMITA_APEL_S = 60.0
#: Limita întregii verificări (în procesul notebook-ului).
LIMITA_VERIFICARE_S = 240.0
RANGURI = 2


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


def _e_ciot(functie) -> bool:
    """Adevărat dacă funcția (sau clasa) cursantului e încă ciotul din notebook: corpul ei e doar
    `raise NotImplementedError` (cu comentarii, docstring sau `pass` în jur). Se vede din sursă,
    fără ca funcția să fie rulată: altfel, exercițiile 1 și 3 ar porni două procese ca să afle același lucru."""
    try:
        arbore = ast.parse(textwrap.dedent(inspect.getsource(functie)))
    except (OSError, TypeError, SyntaxError):
        return False
    definitii = [n for n in ast.walk(arbore) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not definitii:
        return False
    corp = [n for n in definitii[0].body
            if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)) and not isinstance(n, ast.Pass)]
    # Ca `baza._e_stub`: doar `raise NotImplementedError` fără mesaj (cu mesaj, e o alegere a ta).
    return (len(corp) == 1 and isinstance(corp[0], ast.Raise) and corp[0].exc is not None
            and ast.unparse(corp[0].exc) in ("NotImplementedError", "NotImplementedError()"))


def _cere_functie(functie, semnatura: str) -> None:
    if functie is None:
        raise GresealaCursant(f"Ai dat None: trebuia funcția `{semnatura}`.")
    if not callable(functie) or inspect.isclass(functie):
        raise GresealaCursant(f"Trebuia funcția `{semnatura}`, dar am primit {type(functie).__name__}. "
                              "Dă numele funcției, fără paranteze.")
    if _e_ciot(functie):
        raise GresealaCursant(NESCRIS)


def _respins(mesaj: str) -> tuple:
    return ("respins", mesaj)


def _in_rang(corp, *argumente):
    """Rulează `corp(*argumente)` în rang și întoarce ("bun", valoare) sau ("respins", mesaj)
    pentru o greșeală a cursantului (mesajul ajunge în notebook). O excepție neprevăzută (a
    verificării, sau a modelului întors, în afara apelurilor codului tău) devine tot un mesaj în
    română, nu un traceback."""
    try:
        return ("bun", corp(*argumente))
    except GresealaCursant as greseala:
        return _respins(str(greseala))
    except Exception as eroare:  # noqa: BLE001 - orice altceva, spus în română
        return _respins(
            "Verificarea s-a oprit într-un rang cu o eroare pe care n-a prevăzut-o, în timp ce lucra cu modelul "
            "întors de tine. " + explica_exceptie(eroare, cine="Rangul")
        )


def _mesaj_rang_cazut(stare) -> str:
    """Ce s-a întâmplat cu un rang oprit înainte să termine verificarea (o excepție în afara corpului
    verificării, de exemplu la despachetarea funcției tale, sau procesul căzut), în română; textul
    original al excepției, un singur rând, doar după explicație."""
    if stare.fel == "eroare":
        mesaj = (stare.mesaj or "").strip()
        tradusa = traduce_mesaj(mesaj, stare.exceptie) if mesaj else None
        return (f"Rangul {stare.rang} s-a oprit cu {stare.exceptie}" + (f": {tradusa}." if tradusa else ".")
                + cu_originalul(mesaj))
    text = stare.in_romana()
    return text[0].upper() + text[1:] + "."


def _ruleaza_verificarea(corp, *argumente) -> list:
    """Pornește verificarea în ranguri și întoarce valorile rangurilor. Un mesaj de respingere
    dintr-un rang devine `GresealaCursant`; un rang căzut sau blocat, la fel, cu explicația."""
    try:
        rezultate = ruleaza_pe_ranguri(_in_rang, corp, *argumente, ranguri=RANGURI, limita_s=LIMITA_RANGURI_S,
                                       gratie_s=15.0, backend="gloo", arata_iesirea=False)
    except EroareRanguri as eroare:
        for stare in eroare.stari:  # un rang care a respins răspunsul spune de ce; celălalt îl aștepta
            if stare.fel == "gata" and stare.valoare[0] == "respins":
                raise GresealaCursant(stare.valoare[1]) from None
        blocate = [s for s in eroare.stari if s.fel in ("blocat", "așteptare")]
        if blocate and not any(s.fel in ("eroare", "oprit") for s in eroare.stari):
            raise GresealaCursant(
                f"Verificarea n-a terminat în {format_numar(LIMITA_RANGURI_S)} s și am oprit rangurile. De cele mai multe ori, "
                "un rang așteaptă o operație colectivă (un all-reduce, un `barrier`, pasul înapoi al lui DDP) la "
                "care celălalt nu vine: codul tău face ceva doar într-un rang (`if dist.get_rank() == 0:`) sau face un "
                "număr diferit de pași în cele două ranguri."
            ) from None
        cazut = next((s for s in eroare.stari if s.fel in ("eroare", "oprit")), None)
        raise GresealaCursant(
            "Un rang s-a oprit înainte să termine verificarea, cu o eroare pe care verificarea n-a prevăzut-o. "
            + (_mesaj_rang_cazut(cazut) if cazut is not None else "")
        ) from None
    except TypeError as eroare:  # funcția nu se poate trimite în ranguri
        raise GresealaCursant(str(eroare)) from None
    for rezultat in rezultate:
        if rezultat[0] == "respins":
            raise GresealaCursant(rezultat[1])
    return [r[1] for r in rezultate]


def _gradienti_de_referinta(referinta: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Ieșirea și gradienții modelului de referință pe datele rangului, mediați între ranguri
    (ce trebuie să dea DDP sau FSDP)."""
    import torch.distributed as dist

    referinta.zero_grad(set_to_none=True)
    iesire = referinta(x)
    iesire.pow(2).mean().backward()
    gradienti = []
    for p in referinta.parameters():
        g = p.grad.detach().clone()
        dist.all_reduce(g)
        gradienti.append(g / dist.get_world_size())
    return iesire.detach(), gradienti


class _NumaratorCuIesiri(NumaratorCompilari):
    """Numărătorul dat codului tău ca backend, care ține minte și nodurile autograd ale ieșirilor
    grafurilor compilate (`marcate`, golit de verificare înaintea fiecărui pas): așa se vede dacă
    pierderea și gradienții vin chiar din codul compilat sau dintr-un model rulat în modul eager,
    alături de o copie compilată al cărei rezultat nu e folosit."""

    def __init__(self, backend: str = "eager"):
        super().__init__(backend)
        self.marcate: set = set()

    def __call__(self, gm, exemple_intrari):
        ruleaza = super().__call__(gm, exemple_intrari)

        def ruleaza_si_marcheaza(*argumente):
            iesiri = ruleaza(*argumente)
            for tensor in (iesiri if isinstance(iesiri, (list, tuple)) else (iesiri,)):
                if isinstance(tensor, torch.Tensor) and tensor.grad_fn is not None:
                    self.marcate.add(tensor.grad_fn)
            return iesiri

        return ruleaza_si_marcheaza


def _sursa_iesirii(iesire: torch.Tensor, marcate: set) -> tuple[int, list[torch.Tensor]]:
    """Ce a produs `iesire`, citit din graful ei autograd (cel pe care îl parcurge pasul înapoi):
    câte ieșiri ale grafurilor compilate (noduri din `marcate`) ajung în ea și ce parametri
    (`nn.Parameter`) își primesc gradientul direct dintr-o operație rulată în modul eager (un nod
    care nu e al unui graf compilat)."""
    if not isinstance(iesire, torch.Tensor) or iesire.grad_fn is None:
        return 0, []
    vazute, stiva = set(), [iesire.grad_fn]
    compilate, eager = 0, []
    while stiva:
        nod = stiva.pop()
        if nod is None or nod in vazute:
            continue
        vazute.add(nod)
        din_graf = nod in marcate
        compilate += din_graf
        for urmator, _ in getattr(nod, "next_functions", ()):
            if urmator is None:
                continue
            variabila = getattr(urmator, "variable", None)
            if variabila is not None:
                if not din_graf and isinstance(variabila, nn.Parameter) and all(variabila is not p for p in eager):
                    eager.append(variabila)
                continue
            stiva.append(urmator)
    return compilate, eager


def _linii_in_grafuri(numarator) -> int:
    """Câte operații liniare (`linear`, `addmm`, `mm`) sunt în grafurile văzute de numărător."""
    total = 0
    for gm in numarator.grafuri:
        for nod in gm.graph.nodes:
            if nod.op in ("call_function", "call_method", "call_module"):
                nume = str(getattr(nod.target, "__name__", nod.target)).lower()
                total += any(cuvant in nume for cuvant in ("linear", "addmm", "mm"))
    return total


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: modelul care nu se compila sub DDP
# ---------------------------------------------------------------------------------------------


def _secventa_aleatoare(rng) -> tuple[nn.Sequential, int, int]:
    latimi = [rng.randrange(8, 49, 4) for _ in range(rng.randint(3, 5))]
    straturi: list[nn.Module] = []
    for intrare, iesire in zip(latimi, latimi[1:]):
        straturi += [nn.Linear(intrare, iesire), rng.choice([nn.GELU, nn.ReLU, nn.Tanh])()]
    straturi.append(nn.Linear(latimi[-1], 1))
    return nn.Sequential(*straturi), latimi[0], sum(isinstance(s, nn.Linear) for s in straturi)


def _mesaj_fara_grafuri(contoare: dict) -> str:
    if contoare["grafuri"] > 0:
        return (
            "Numărătorul pe care ți l-am dat (`backend`) n-a primit niciun graf, deși Dynamo a compilat ceva: "
            "ai compilat cu alt backend. Dă-i lui `torch.compile` (sau lui `model.compile`) `backend=backend`, "
            "ca verificarea să vadă ce compilezi."
        )
    return (
        "Dynamo n-a capturat niciun graf: modelul a rulat în întregime în modul eager, fără niciun avertisment. "
        "Asta e compilarea care nu face nimic: când compilezi `DDP(model)`, Dynamo pornește de la "
        "`DistributedDataParallel.forward`, se întrerupe în el, iar modelul e chemat din cod pe care nu-l urmărește. "
        "Pentru Dynamo, `Sequential.forward` e atunci un cadru nou, iar codul din `torch.nn` e pe lista fișierelor pe "
        "care le sare. Un modul scris de tine nu e pe listă. Fă ca Dynamo să înceapă în cod pe care nu-l sare: "
        "compilează modelul înainte să-l dai lui DDP sau învelește-l într-un modul al tău."
    )


def _corp_1(pregateste, seminta: int, backend: str):
    import torch.distributed as dist

    rng = random.Random(seminta)
    torch.manual_seed(seminta)
    model, latime, liniare = _secventa_aleatoare(rng)
    referinta = copy.deepcopy(model)
    numarator = _NumaratorCuIesiri(backend)
    goleste_dynamo()
    pregatit = apeleaza(pregateste, model, numarator, limita_s=LIMITA_APEL_S, ce="funcția ta `pregateste`")
    if pregatit is None:
        raise GresealaCursant("`pregateste` a întors None: ai uitat `return`? Trebuia să întorci modelul gata de antrenare.")
    if not callable(pregatit):
        raise GresealaCursant(f"`pregateste` a întors {type(pregatit).__name__}, care nu se poate chema ca un model.")
    generator = torch.Generator().manual_seed(seminta + 1 + dist.get_rank())
    rulari_pe_pas, surse = [], []
    parametri = list(model.parameters())
    for pas in range(2):
        x = torch.randn(rng.randint(3, 9), latime, generator=generator)
        iesire_ref, gradienti_ref = _gradienti_de_referinta(referinta, x)
        gradienti_locali = [p.grad.detach().clone() for p in referinta.parameters()]
        for p in model.parameters():
            p.grad = None
        rulari = numarator.rulari
        numarator.marcate.clear()
        iesire = apeleaza(pregatit, x, limita_s=LIMITA_APEL_S, ce="modelul întors de `pregateste` (pasul înainte)")
        compara_tensori(iesire, iesire_ref, f"pasul înainte {pas + 1}, în rangul {dist.get_rank()}")
        compilate, eager = _sursa_iesirii(iesire, numarator.marcate)
        surse.append((compilate, sum(any(p is e for e in eager) for p in parametri)))
        numarator.marcate.clear()
        apeleaza(lambda: iesire.pow(2).mean().backward(), limita_s=LIMITA_APEL_S, ce="pasul înapoi")
        rulari_pe_pas.append(numarator.rulari - rulari)
        obtinuti = [p.grad for p in model.parameters()]
        if any(g is None for g in obtinuti):
            raise GresealaCursant(
                "După pasul înapoi, parametrii modelului primit n-au gradient: modelul tău antrenează o copie a "
                "lui? Pune sub DDP chiar modelul primit (sau un modul care îl conține), ca gradienții să ajungă în "
                "parametrii lui."
            )
        for obtinut, asteptat, local in zip(obtinuti, gradienti_ref, gradienti_locali):
            if torch.allclose(obtinut, asteptat, rtol=1e-4, atol=1e-6):
                continue
            if torch.allclose(obtinut, local, rtol=1e-4, atol=1e-6):
                raise GresealaCursant(
                    "Gradienții sunt cei calculați doar din datele acestui rang, nu media lor între ranguri: "
                    "modelul nu e sub DDP (sau DDP n-a văzut pasul înapoi). Fiecare rang ar învăța altceva, iar "
                    "copiile modelului ar începe să difere după primul pas al optimizatorului."
                )
            raise GresealaCursant(
                f"Gradienții de după pasul înapoi {pas + 1} nu sunt media gradienților din cele două ranguri "
                f"(diferența maximă: {format_numar(float((obtinut - asteptat).abs().max()), 3)})."
            )
    contoare = distribuit.numar_grafuri_compilate()
    if numarator.compilari == 0:
        raise GresealaCursant(_mesaj_fara_grafuri(contoare))
    if min(rulari_pe_pas) == 0:
        raise GresealaCursant(
            "Dynamo a compilat un graf, dar la un pas modelul n-a rulat nicio bucată compilată: "
            "ai compilat altceva decât modelul pe care îl întorci."
        )
    if _linii_in_grafuri(numarator) < liniare:
        raise GresealaCursant(
            f"Grafurile compilate au mai puține straturi liniare decât modelul ({liniare}): o parte din model "
            "rulează în afara grafului. Compilează tot modelul, nu doar o bucată."
        )
    for pas, (compilate, eager) in enumerate(surse, 1):
        if compilate == 0:
            raise GresealaCursant(
                f"La pasul {pas}, grafurile compilate au rulat, dar ieșirea modelului pe care îl întorci nu vine din ele: "
                "în graful pasului înapoi (cel pe care îl parcurge autograd) nu e niciun graf compilat, deci pierderea și "
                "gradienții vin din modelul rulat în modul eager. E o momeală: o copie compilată rulată alături (sub "
                "`torch.no_grad()`, într-un cârlig), al cărei rezultat nu-l folosește nimeni. Compilarea trebuie să fie "
                "chiar calculul care dă ieșirea: întoarce modelul compilat, pus sub DDP."
            )
        if eager:
            raise GresealaCursant(
                f"La pasul {pas}, {eager} din {cu_substantiv(len(parametri), 'tensor de parametri', 'tensori de parametri')} "
                "ai modelului își primesc gradientul din operații rulate în modul eager, nu din graful compilat: o "
                "parte din model rulează în afara grafului (sau ieșirea amestecă modelul eager cu o copie compilată). "
                "Compilează tot modelul și întoarce chiar modelul compilat, pus sub DDP."
            )
    return {"grafuri": numarator.compilari, "liniare": liniare}


def exercitiul_1(pregateste) -> Rezultat:
    """Verifică `pregateste(model, backend)`: primește un `nn.Sequential` (straturi și lățimi
    alese la întâmplare) și un backend de compilare și întoarce ce se antrenează în fiecare rang.
    În două ranguri, cu date diferite: ieșirea egală cu a modelului neatins, gradienții din
    parametrii modelului egali cu media gradienților celor două ranguri (deci DDP e acolo), cel
    puțin un graf compilat cu `backend`, rulat la fiecare pas și cu toate straturile liniare."""

    def corp():
        _cere_functie(pregateste, "pregateste(model, backend)")
        rng = generator_aleator()
        backend = distribuit.backend_compilare("gloo")
        rezultate = _ruleaza_verificarea(_corp_1, pregateste, rng.randrange(2**31), backend)
        grafuri = rezultate[0]["grafuri"]
        return (
            f"Modelul tău se antrenează sub DDP (gradienții sunt media gradienților celor două ranguri) și chiar e "
            f"compilat: {cu_substantiv(grafuri, 'graf', 'grafuri')} cu toate cele {rezultate[0]['liniare']} straturi "
            f"liniare, {'rulat' if grafuri == 1 else 'rulate'} la fiecare pas."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_VERIFICARE_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: câte grafuri face DDPOptimizer
# ---------------------------------------------------------------------------------------------

_MIB = 2**20
#: Câte cazuri încearcă exercițiul 2 (cele fixe, la limită, plus cele alese la întâmplare).
CAZURI_2 = 45

#: Cazurile fixe ale exercițiului 2, în fiecare rulare: fiecare desparte regula de una dintre
#: variantele ei greșite (`_greselile_2`), ca verdictul să nu depindă de sămânță.
_CAZURI_FIXE_2 = (
    ([_MIB] * 4, 1.0),  # fiecare strat umple exact o găleată: ≥, nu >
    ([_MIB] * 4, 2.0),  # prima găleată are limita ei, 1 MiB, oricât ar fi `galeata_mb`
    ([_MIB - 4, 4, _MIB], 1.0),  # găleata ajunge la limită abia cu al doilea strat
    ([3 * _MIB, 1, 1, 1], 1.0),  # ordinea: de la ultimul strat la primul
    ([0, 3 * _MIB, 0, 0], 2.0),  # straturi fără parametri la început și la sfârșit
    ([0, 0, 0], 1.0),  # niciun strat cu parametri: tot un graf
    ([5 * _MIB], 1.0),  # un singur strat, mai mare decât găleata
    ([1000] * 10, 25.0),  # totul într-o singură găleată
    ([629_146] * 10, 1.5),  # `galeata_mb` cu zecimale: nu se rotunjește
    ([1_000_010] * 4, 1.0),  # un MiB are 2**20 octeți, nu 10**6
    ([524_289] * 3, 1.0),  # găleata se închide când a ajuns la limită, nu înainte să treacă de ea
)


def _cazuri_2(rng) -> list[tuple[list[int], float]]:
    """Cazurile exercițiului 2: cele fixe (`_CAZURI_FIXE_2`) și, până la `CAZURI_2`, altele alese la
    întâmplare, amestecate. Găleata are cel mult trei zecimale, ca un caz să se poată scrie exact."""
    cazuri = [(list(octeti), galeata) for octeti, galeata in _CAZURI_FIXE_2]
    while len(cazuri) < CAZURI_2:
        straturi = [rng.choice([0, rng.randrange(1, 4 * _MIB), rng.randrange(1, _MIB // 2)])
                    for _ in range(rng.randint(1, 14))]
        cazuri.append((straturi, rng.choice([1.0, 1.5, 2.0, 3.0, 4.0, round(rng.uniform(1, 6), 3)])))
    rng.shuffle(cazuri)
    return cazuri


def _greselile_2() -> tuple:
    """Variantele greșite ale regulii lui DDPOptimizer întâlnite cel mai des, fiecare cu sfatul care
    numește greșeala: (funcție(octeti, galeata_mb), sfat). Regula întreagă nu e printre ele: verificarea
    compară cu `distribuit.grafuri_prezise`, pe care funcția ta n-o poate chema."""

    def galeti(octeti, galeata_mb, *, invers=True, strict=False, prima=True, goala=False, nevide=False,
               mib=_MIB, mib_prima=_MIB, rotunjire=None):
        galeata = rotunjire(galeata_mb) if rotunjire else galeata_mb
        lista = [0]
        for marime in (reversed(octeti) if invers else octeti):
            limita = distribuit.PRIMA_GALEATA_MB * mib_prima if prima and len(lista) == 1 else galeata * mib
            if lista[-1] > limita or (not strict and lista[-1] == limita):
                lista.append(0)
            lista[-1] += marime
        if nevide:
            return sum(1 for g in lista if g > 0)
        if not goala and len(lista) > 1 and lista[-1] == 0:
            lista.pop()
        return len(lista)

    def varianta(**optiuni):
        return lambda octeti, galeata_mb: galeti(octeti, galeata_mb, **optiuni)

    def inchide_inainte(octeti, galeata_mb):
        lista = [0]
        for marime in reversed(octeti):
            limita = (distribuit.PRIMA_GALEATA_MB if len(lista) == 1 else galeata_mb) * _MIB
            if lista[-1] and lista[-1] + marime > limita:
                lista.append(0)
            lista[-1] += marime
        return len(lista)

    def total_impartit(octeti, galeata_mb):
        return max(1, math.ceil(sum(octeti) / (galeata_mb * _MIB)))

    def total_impartit_cu_prima(octeti, galeata_mb):
        return 1 + math.ceil(max(0, sum(octeti) - _MIB) / (galeata_mb * _MIB))

    zecimale = ("`galeata_mb` poate avea zecimale (1,5 MiB, de exemplu): nu-l rotunji și nu-l trunchia "
                "(`int(galeata_mb)`, `round`); limita e `galeata_mb * 2**20` octeți.")
    megaocteti = ("Un MiB are 2**20 = 1 048 576 de octeți, nu 10**6 (acela e un MB): limita primei găleți e "
                  "1 048 576 de octeți, a celorlalte `galeata_mb * 2**20`.")
    impartire = ("Nu împărți totalul octeților la mărimea găleții: un strat nu se împarte între două găleți, iar o "
                 "găleată se închide abia după ce a ajuns la limită, deci poate trece de ea. Parcurge straturile unul "
                 "câte unul, de la ultimul la primul.")
    return (
        (varianta(invers=False), "Parcurge straturile de la ultimul la primul: în această ordine sunt gata "
                                 "gradienții în pasul înapoi, deci în această ordine se umplu gălețile."),
        (varianta(strict=True), "O găleată se închide când a ajuns **cel puțin** la limită (≥, nu >)."),
        (varianta(prima=False), "Prima găleată are limita ei, 1 MiB, oricât ar fi `galeata_mb`, ca primul "
                                "all-reduce să pornească devreme."),
        (varianta(goala=True), "O găleată rămasă goală la sfârșit (straturi fără parametri la începutul "
                               "modelului) nu e un graf separat: DDPOptimizer o lipește de cea de dinainte."),
        (varianta(nevide=True), "Un model fără niciun parametru tot se compilează într-un graf: numărul de "
                                "grafuri e cel puțin 1. Doar o găleată goală rămasă la sfârșit, după altele, nu se "
                                "numără."),
        (varianta(rotunjire=int), zecimale),
        (varianta(rotunjire=round), zecimale),
        (varianta(rotunjire=math.ceil), zecimale),
        (varianta(mib=10**6, mib_prima=10**6), megaocteti),
        (varianta(mib=10**6), megaocteti),
        (total_impartit, impartire),
        (total_impartit_cu_prima, impartire),
        (inchide_inainte, "O găleată se închide abia după ce a ajuns la limită: stratul care o duce peste limită "
                          "intră tot în ea (o găleată poate trece de limită). Nu începe una nouă doar pentru că "
                          "următorul strat n-ar mai încăpea."),
    )


def _sfat_2(cazuri, raspunsuri, gresite: list[int], indice: int) -> str:
    """Sfatul pentru greșeala pe care o reproduce o variantă greșită a regulii: întâi una care dă
    toate răspunsurile tale; altfel (mai multe greșeli deodată), cea care dă răspunsul greșit arătat și
    cele mai multe dintre răspunsurile tale greșite, măcar jumătate; altfel, sfatul general."""
    greseli = _greselile_2()
    for varianta, sfat in greseli:
        if all(varianta(list(o), g) == r for (o, g), r in zip(cazuri, raspunsuri)):
            return sfat
    cel_mai_bun, potriviri = None, 0
    for varianta, sfat in greseli:
        if varianta(list(cazuri[indice][0]), cazuri[indice][1]) != raspunsuri[indice]:
            continue
        aici = sum(varianta(list(cazuri[i][0]), cazuri[i][1]) == raspunsuri[i] for i in gresite)
        if aici > potriviri:
            cel_mai_bun, potriviri = sfat, aici
    if cel_mai_bun is not None and 2 * potriviri >= len(gresite):
        return cel_mai_bun
    return ("Aplică regula pas cu pas pe acest caz: de la ultimul strat la primul, adaugi octeții stratului la "
            "găleata curentă, după ce ai început una nouă dacă cea curentă ajunsese la limită (1 MiB pentru prima, "
            "`galeata_mb` MiB pentru celelalte); un strat nu se împarte între găleți.")


def _numar_intreg_2(obtinut) -> int:
    """Răspunsul funcției ca întreg Python: orice tip întreg (`int`, `numpy.int64`, un tensor întreg cu un
    singur element) e primit; un număr cu virgulă, un bool sau altceva, nu."""
    if isinstance(obtinut, torch.Tensor) and obtinut.dtype == torch.bool or type(obtinut).__name__ in ("bool", "bool_"):
        raise GresealaCursant(f"`numar_grafuri` trebuie să întoarcă numărul de grafuri, un număr întreg, nu o valoare "
                              f"de adevăr ({obtinut!r}).")
    try:
        return operator.index(obtinut)
    except TypeError:
        pass
    if isinstance(obtinut, float) or type(obtinut).__name__.startswith("float") or (
            isinstance(obtinut, torch.Tensor) and obtinut.is_floating_point()):
        raise GresealaCursant(
            f"`numar_grafuri` trebuie să întoarcă un număr întreg de grafuri (`int`), nu {type(obtinut).__name__} "
            f"({obtinut!r}): un număr de grafuri nu are zecimale. Un rezultat cu virgulă vine de obicei dintr-o "
            "împărțire (`/`); numără gălețile (de exemplu, `len(galeti)`)."
        )
    raise GresealaCursant(f"`numar_grafuri` trebuie să întoarcă un număr întreg de grafuri, "
                          f"nu {type(obtinut).__name__} ({obtinut!r}).")


def exercitiul_2(numar_grafuri) -> Rezultat:
    """Verifică `numar_grafuri(octeti, galeata_mb)` pe 45 de cazuri: cele fixe, la limită, care despart
    regula de variantele ei greșite (`_CAZURI_FIXE_2`), și altele alese la întâmplare (straturi și
    găleți). Cere același număr de grafuri ca regula lui DDPOptimizer (`distribuit.grafuri_prezise`, pe
    care funcția ta n-o poate chema, nici printr-o copie), ca întreg (de orice tip întreg)."""

    def corp():
        _cere_functie(numar_grafuri, "numar_grafuri(octeti, galeata_mb)")
        rng = generator_aleator()
        interzise = {distribuit.grafuri_prezise: "distribuit.grafuri_prezise"}
        cazuri = _cazuri_2(rng)
        raspunsuri = []
        for octeti, galeata_mb in cazuri:
            obtinut = apeleaza(numar_grafuri, list(octeti), galeata_mb, limita_s=5.0, interzise=interzise,
                               paza_stricta=True, ce="funcția ta `numar_grafuri`")
            raspunsuri.append(_numar_intreg_2(obtinut))
        asteptate = [distribuit.grafuri_prezise(octeti, galeata_mb) for octeti, galeata_mb in cazuri]
        gresite = [i for i, (a, b) in enumerate(zip(raspunsuri, asteptate)) if a != b]
        if gresite and len(set(raspunsuri)) == 1:
            raise GresealaCursant(
                f"Funcția ta întoarce mereu {raspunsuri[0]}, oricare ar fi straturile și găleata; numărul corect a "
                f"variat între {min(asteptate)} și {max(asteptate)} în cazurile încercate. Calculează-l din `octeti` "
                "și `galeata_mb`."
            )
        if gresite:
            # Cel mai scurt caz greșit, scris exact, ca să-l poți lipi în celula ta.
            indice = min(gresite, key=lambda i: (len(cazuri[i][0]), sum(cazuri[i][0])))
            octeti, galeata_mb = cazuri[indice]
            obtinut, asteptat = raspunsuri[indice], asteptate[indice]
            raise GresealaCursant(
                f"Greșit în {len(gresite)} din {cu_substantiv(len(cazuri), 'caz', 'cazuri')}. De exemplu, "
                f"`numar_grafuri({list(octeti)!r}, {galeata_mb!r})` (octeții straturilor, în ordinea pasului "
                f"înainte) trebuia să dea {asteptat}: DDPOptimizer face {cu_substantiv(asteptat, 'graf', 'grafuri')}, "
                f"iar funcția ta spune {obtinut}. Poți lipi apelul în celula ta, ca să-l urmărești pas cu pas. "
                + _sfat_2(cazuri, raspunsuri, gresite, indice)
            )
        return (f"Ai prezis corect numărul de grafuri în toate cele {len(cazuri)} de cazuri: o găleată se închide când "
                "a ajuns la limită (prima la 1 MiB), iar straturile se parcurg de la ultimul la primul.")

    return verificare("Exercițiul 2", corp, limita_s=60.0)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: FSDP2 compilat bloc cu bloc, fără recompilare
# ---------------------------------------------------------------------------------------------


def _corp_3(pregateste_fsdp, seminta: int, backend: str):
    import torch.distributed as dist
    from torch._dynamo.utils import counters
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import FSDPModule

    rng = random.Random(seminta)
    torch.manual_seed(seminta)
    latime, blocuri = rng.randrange(16, 65, 8), rng.randint(3, 5)
    model = distribuit.ReteaBlocuri(latime, blocuri)
    referinta = copy.deepcopy(model)
    retea = init_device_mesh("cpu", (dist.get_world_size(),))
    numarator = _NumaratorCuIesiri(backend)
    goleste_dynamo()
    inainte = configuratia_compilatorului()
    pregatit = apeleaza(pregateste_fsdp, model, retea, numarator, limita_s=LIMITA_APEL_S,
                        ce="funcția ta `pregateste_fsdp`")
    if pregatit is None:
        raise GresealaCursant("`pregateste_fsdp` a întors None: ai uitat `return`?")
    if not callable(pregatit):
        raise GresealaCursant(f"`pregateste_fsdp` a întors {type(pregatit).__name__}, care nu se poate chema.")
    nefragmentate = [f"blocuri[{i}]" for i, b in enumerate(model.blocuri) if not isinstance(b, FSDPModule)]
    if not isinstance(model, FSDPModule):
        nefragmentate.append("rădăcina (modelul)")
    if nefragmentate:
        raise GresealaCursant(
            f"Nu sunt fragmentate cu `fully_shard`: {', '.join(nefragmentate)}. Exercițiul cere câte o unitate FSDP "
            "pentru fiecare bloc și una pentru rădăcină (pentru parametrii rămași, ai capului)."
        )
    greutate = model.blocuri[0].liniar.weight
    if type(greutate).__name__ != "DTensor" or greutate.to_local().shape[0] != latime // dist.get_world_size():
        raise GresealaCursant(
            "Greutățile blocurilor nu sunt fragmentate pe rânduri între cele două ranguri (fiecare rang trebuia "
            f"să țină {latime // dist.get_world_size()} din cele {cu_substantiv(latime, 'rând', 'rânduri')}): folosește rețeaua de dispozitive "
            "primită, `fully_shard(bloc, mesh=retea)`."
        )
    generator = torch.Generator().manual_seed(seminta + 1 + dist.get_rank())
    lot = rng.randint(3, 9)  # același lot la fiecare pas: o formă nouă ar fi altă recompilare
    rulari_pe_pas, surse = [], []
    for pas in range(2):
        x = torch.randn(lot, latime, generator=generator)
        iesire_ref, gradienti_ref = _gradienti_de_referinta(referinta, x)
        for p in model.parameters():
            p.grad = None
        rulari = numarator.rulari
        numarator.marcate.clear()
        iesire = apeleaza(pregatit, x, limita_s=LIMITA_APEL_S, ce="modelul întors (pasul înainte)")
        compara_tensori(iesire, iesire_ref, f"pasul înainte {pas + 1}, în rangul {dist.get_rank()}", rtol=1e-4, atol=1e-5)
        compilate, eager = _sursa_iesirii(iesire, numarator.marcate)
        # Greutățile blocurilor (latime × latime; capul are 1 × latime) rulate în modul eager: câte blocuri.
        surse.append((compilate, sum(tuple(p.shape) == (latime, latime) for p in eager)))
        numarator.marcate.clear()
        apeleaza(lambda: iesire.pow(2).mean().backward(), limita_s=LIMITA_APEL_S, ce="pasul înapoi")
        rulari_pe_pas.append(numarator.rulari - rulari)
        for (nume, p), asteptat in zip(model.named_parameters(), gradienti_ref):
            if p.grad is None:
                raise GresealaCursant(f"După pasul înapoi, `{nume}` n-are gradient.")
            obtinut = p.grad.full_tensor() if hasattr(p.grad, "full_tensor") else p.grad
            if not torch.allclose(obtinut, asteptat, rtol=1e-4, atol=1e-6):
                raise GresealaCursant(
                    f"Gradientul lui `{nume}` nu e media gradienților celor două ranguri (diferența maximă: "
                    f"{format_numar(float((obtinut - asteptat).abs().max()), 3)})."
                )
    schimbate = schimbari_configuratie(inainte)
    if schimbate:
        raise GresealaCursant(
            f"Codul tău schimbă configurația globală a compilatorului ({', '.join(f'`{s}`' for s in schimbate[:3])}). "
            "Așa ascunzi recompilarea, nu o repari: de exemplu, cu o limită de recompilări mai mică, Dynamo renunță "
            "la recompilare și rulează blocul în modul eager. Nu o face pe tăcute: scrie în jurnal un avertisment "
            "(„torch._dynamo hit config.recompile_limit”). Doar că aici nu-l vezi: verificarea nu arată ce scriu "
            "rangurile ei, iar rangurile pornite de uneltele capitolului (secțiunile 2–4) își coboară jurnalele lui "
            "Dynamo la nivelul ERROR. Repară cauza: intrarea primului bloc."
        )
    intreruperi = sum(counters["graph_break"].values())
    if numarator.compilari == 0:
        if distribuit.numar_grafuri_compilate()["grafuri"] > 0:
            raise GresealaCursant(
                "Numărătorul pe care ți l-am dat (`backend`) n-a primit niciun graf, deși Dynamo a compilat ceva: ai "
                "compilat cu alt backend. Compilează fiecare bloc cu `bloc.compile(backend=backend)`."
            )
        raise GresealaCursant(
            "Dynamo n-a capturat niciun graf: blocurile au rulat în modul eager. Exercițiul cere blocurile compilate, "
            "fiecare separat (`bloc.compile(backend=backend)`), înainte de `fully_shard`."
        )
    if intreruperi:
        raise GresealaCursant(
            f"Blocurile compilate au {cu_substantiv(intreruperi, 'întrerupere a grafului', 'întreruperi ale grafului')}: "
            f"{next(iter(counters['graph_break'])).splitlines()[0][:160]}. Un cârlig pus pe un bloc compilat rulează în graful lui; "
            "compilează blocurile (nu modelul întreg, pe care FSDP îl învelește cu cârligele lui) și pune ce e de "
            "făcut înaintea lor în afara oricărui graf."
        )
    if numarator.compilari > 1:
        motive = [m for m in motive_recompilare() if m]
        motiv = f" Garda căzută: {descrie_garda(motive[0])}." if motive else ""
        raise GresealaCursant(
            f"Au fost {numarator.compilari} compilări în loc de una.{motiv} Toate blocurile au același cod "
            "(`Bloc.forward`), deci aceleași gărzi: primul bloc primește datele (fără `requires_grad`), celelalte "
            "ieșirea unui bloc (cu `requires_grad`). Fă ca blocurile compilate să vadă același fel de intrare."
        )
    if min(rulari_pe_pas) < blocuri - 1:
        raise GresealaCursant(
            f"La un pas, doar {cu_substantiv(min(rulari_pe_pas), 'graf compilat a rulat', 'grafuri compilate au rulat')} "
            f"pentru {blocuri} blocuri: exercițiul cere ca fiecare bloc din `model.blocuri` să fie compilat (doar "
            "primul poate rămâne în modul eager)."
        )
    for pas, (compilate, blocuri_eager) in enumerate(surse, 1):
        if blocuri_eager > 1 or compilate == 0:
            fara_grafuri = ("niciun graf compilat nu ajunge în ieșire" if compilate == 0 else
                            f"doar {cu_substantiv(compilate, 'graf compilat ajunge', 'grafuri compilate ajung')} în ieșire")
            raise GresealaCursant(
                f"La pasul {pas}, grafurile compilate au rulat, dar {fara_grafuri}: în graful pasului înapoi (cel pe care "
                f"îl parcurge autograd), {blocuri_eager} din cele {blocuri} blocuri "
                f"{'își primește' if blocuri_eager == 1 else 'își primesc'} gradientul greutăților din operații rulate "
                "în modul eager. E o momeală: o copie "
                "compilată (a modelului sau a unui bloc) rulată alături, sub `torch.no_grad()` sau într-un cârlig, al "
                "cărei rezultat nu-l folosește nimeni. Compilează chiar blocurile din `model.blocuri` (doar primul poate "
                "rămâne în modul eager), ca ieșirea și gradienții să vină din grafurile lor."
            )
    return {"compilari": numarator.compilari, "rulari": rulari_pe_pas[-1], "blocuri": blocuri}


def exercitiul_3(pregateste_fsdp) -> Rezultat:
    """Verifică `pregateste_fsdp(model, retea, backend)`: primește o `ReteaBlocuri` (lățime și
    număr de blocuri alese la întâmplare), o rețea de dispozitive cu două ranguri și un backend.
    În două ranguri, cu date diferite: fiecare bloc și rădăcina sunt unități FSDP, greutățile sunt
    fragmentate pe rânduri, ieșirea și gradienții (întregi) egali cu ai modelului de referință
    (media rangurilor), o singură compilare, fără întreruperi, cel puțin `blocuri - 1` grafuri
    compilate rulate la fiecare pas, configurația lui Dynamo neatinsă."""

    def corp():
        _cere_functie(pregateste_fsdp, "pregateste_fsdp(model, retea, backend)")
        rng = generator_aleator()
        backend = distribuit.backend_compilare("gloo")
        rezultate = _ruleaza_verificarea(_corp_3, pregateste_fsdp, rng.randrange(2**31), backend)
        r = rezultate[0]
        return (
            f"Modelul e fragmentat cu FSDP2 și compilat bloc cu bloc: o singură compilare, "
            f"{cu_substantiv(r['rulari'], 'graf compilat rulat', 'grafuri compilate rulate')} la fiecare pas pentru "
            f"{r['blocuri']} blocuri, gradienții egali cu media gradienților celor două ranguri."
        )

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_S)
