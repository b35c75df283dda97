"""Verificările exercițiilor din capitolul 06 — modelul întreg (antrenare și servire compilate).

- Exercițiul 1: un program al ratei de învățare care nu recompilează. În două sesiuni, fiecare
  cu alt număr de pași și altă lungime a încălzirii (ca o încălzire sau un total scrise pe de
  rost să nu treacă), pe un model mic (un strat liniar, pe procesor, ca verificarea să fie rapidă
  oriunde), cu gradienți aleatori: parametrii după fiecare pas sunt cei ai unui AdamW de
  referință eager cu rata `rata_la_pasul(t)` ca float; rata folosită la fiecare pas e citită din
  actualizare (AdamW e liniar în rată), ca o greșeală a programului să fie spusă pe nume; chiar
  `optimizator.step()` rulează compilat (un cârlig înaintea pasului notează
  `torch.compiler.is_compiling()`), iar pasul nu se recompilează după primii doi pași.
- Exercițiul 2: alegerea modului de compilare pentru o constrângere de servire, din cifre
  măsurate (memoria: cea cerută de mod, creșterea la un apel plus grupul grafurilor CUDA), pe
  cazuri cu cifre alese la întâmplare în jurul situațiilor care separă răspunsul corect de
  greșeli (un mod care lipsește, același număr de cereri cu câștigători diferiți, cereri de o
  parte și de alta a unui prag de rentabilitate), plus cifrele din enunț, `EXEMPLU_2`.
- Exercițiul 3: compilarea regională a blocului repetat, pe două modele mici (2 și 3–4 straturi):
  ieșirile egale cu eager, `state_dict` neschimbat, clasa `BlocTransformer` neatinsă (o
  `forward` compilată pusă în clasă e respinsă și clasa e pusă la loc), fiecare strat rulat
  printr-o regiune compilată (numărate cu profilerul, la al doilea apel), un singur graf pentru
  bloc (contoarele lui Dynamo), fără recompilări.

Uneltele cursului care fac chiar exercițiul (`antrenare.optimizare_cu_rata_tensor` la 1,
`antrenare._compileaza_straturile` la 3) și referințele verificării (`_alege`, `_alege_corect` la
2) sunt respinse, dacă funcția cursantului le cheamă.

Intrările se schimbă la fiecare rulare (`generator_aleator`; cu `CURS_SEMINTA=…` în mediu, mereu
aceleași). Codul cursantului se apelează numai prin `apeleaza`, iar ce rulează indirect (funcțiile
compilate) sub `limita_timp`.

Mecanismele de numărare (prezente și în PyTorch 2.11, și în 2.14):
`torch._dynamo.utils.counters["stats"]["unique_graphs"]` (un graf nou capturat de Dynamo),
`counters["frames"]["ok"]` (un cadru Python convertit) și evenimentele de profiler
„Torch-Compiled Region: …” (câte unul la fiecare rulare a unui cod compilat de Dynamo) și
„## Call CompiledFxGraph …” (rularea unui graf compilat de Inductor).
"""

from __future__ import annotations

import copy
import io
import math
import numbers

import torch
from torch import nn

from ..amortizare import cost_total
from ..modele import BlocTransformer, ReteaTransformer
from ..cifre import cu_substantiv, format_numar, format_timp
from .baza import fara_jurnale_torch as _fara_jurnale_torch
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    cu_originalul,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    linia_cursantului,
    numar_precis,
    traduce_exceptie,
    verificare,
)

__all__ = [
    "RATA_MAXIMA",
    "rata_la_pasul",
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "EXEMPLU_2",
    "NUME_MODURI",
]

#: Rata de învățare maximă a programului (după încălzire).
RATA_MAXIMA = 1e-3


def rata_la_pasul(t: int, pasi_totali: int) -> float:
    """Rata de învățare a pasului `t` (numărat de la 0) dintr-o rulare de `pasi_totali` pași:
    încălzire liniară pe primii `max(1, pasi_totali // 10)` pași (pasul t are
    `RATA_MAXIMA · (t + 1) / încălzire`, deci ultimul pas al încălzirii are `RATA_MAXIMA`), apoi
    cosinus până la `RATA_MAXIMA / 10`, atinsă la ultimul pas (`pasi_totali − 1`); după aceea
    rămâne `RATA_MAXIMA / 10`."""
    incalzire = max(1, pasi_totali // 10)
    if t < incalzire:
        return RATA_MAXIMA * (t + 1) / incalzire
    minima = RATA_MAXIMA / 10
    progres = min(1.0, (t + 1 - incalzire) / max(1, pasi_totali - incalzire))
    return minima + (RATA_MAXIMA - minima) * 0.5 * (1 + math.cos(math.pi * progres))


def _valoare(v) -> str:
    """Un număr din răspunsul cursantului, scris ca în curs; altceva, cu repr."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return numar_precis(float(v))
    return repr(v)


def _cu_majuscula(text: str) -> str:
    return text[:1].upper() + text[1:]


def _contoare():
    return torch._dynamo.utils.counters


def _grafuri() -> int:
    return int(_contoare()["stats"]["unique_graphs"])


def _cadre() -> int:
    return int(_contoare()["frames"]["ok"])


def _limita_atinsa(text: str) -> bool:
    """Adevărat dacă jurnalul lui Dynamo spune că s-a atins limita de recompilări
    („torch._dynamo hit config.recompile_limit”, în versiunile vechi „cache_size_limit”)."""
    return "hit config.recompile_limit" in text or "hit config.cache_size_limit" in text or (
        "hit config.accumulated" in text
    )


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: un program al ratei de învățare care nu recompilează
# ---------------------------------------------------------------------------------------------

#: Cât are voie să dureze `pregateste_optimizarea` (creează optimizatorul și planificatorul).
LIMITA_PREGATIRE_1_S = 20.0
#: Cât are voie să dureze primul apel al lui `pas_optimizare` (cu tot cu compilarea pe procesor,
#: câteva secunde pe două nuclee) și fiecare apel de după (unul care recompilează poate dura cât
#: primul).
LIMITA_PRIMUL_PAS_1_S = 120.0
LIMITA_PAS_1_S = 60.0
LIMITA_VERIFICARE_1_S = 300.0
#: Verificarea rulează două sesiuni, fiecare cu un optimizator nou, cu un număr de pași ales la
#: întâmplare dintr-un interval: în prima, încălzirea are 1 pas (12–19 pași), în a doua 3 pași
#: (30–39). Un program cu încălzirea scrisă fix în cod sau cu alt total decât `pasi_totali` pică
#: măcar într-una. La câți dintre primii pași ai unei sesiuni e permisă o compilare: după al
#: doilea pas, nimic nou.
SESIUNI_1 = ((12, 19), (30, 39))
PASI_CU_COMPILARE_PERMISA = 2
#: Toleranța comparației parametrilor cu referința (compilat față de eager, float32).
_TOLERANTA_1 = dict(rtol=1e-5, atol=1e-6)
#: Cât de aproape trebuie să fie rata citită din actualizare de cea a programului (relativ).
_TOLERANTA_RATA = 2e-3
_TOLERANTA_PROGRAM_GRESIT = 1e-2

_HIPERPARAMETRI_ADAMW = {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2, "amsgrad": False, "maximize": False}


def _fara_incalzire(t: int, n: int) -> float:
    minima = RATA_MAXIMA / 10
    progres = min(1.0, t / max(1, n - 1))
    return minima + (RATA_MAXIMA - minima) * 0.5 * (1 + math.cos(math.pi * progres))


def _doar_incalzire(t: int, n: int) -> float:
    incalzire = max(1, n // 10)
    return RATA_MAXIMA * min(t + 1, incalzire) / incalzire


def _cu_incalzirea(t: int, n: int, incalzire: int) -> float:
    """Programul cursului, dar cu încălzirea de `incalzire` pași, oricât ar fi `n` (o greșeală)."""
    if t < incalzire:
        return RATA_MAXIMA * (t + 1) / incalzire
    minima = RATA_MAXIMA / 10
    progres = min(1.0, (t + 1 - incalzire) / max(1, n - incalzire))
    return minima + (RATA_MAXIMA - minima) * 0.5 * (1 + math.cos(math.pi * progres))


#: Programe greșite cunoscute: (rata la pasul t, explicația). Una e numită doar dacă ratele
#: citite din actualizări sunt ale ei la toți pașii.
_PROGRAME_GRESITE_1 = (
    (
        lambda t, n: rata_la_pasul(0, n),
        "Rata rămâne aceeași la fiecare pas: programul nu avansează. Cheamă `planificator.step()` "
        "(sau schimbă tensorul ratei) în `pas_optimizare`, după `optimizator.step()`.",
    ),
    (
        lambda t, n: RATA_MAXIMA,
        "Rata rămâne RATA_MAXIMA la fiecare pas: nu urmează programul (nici încălzirea, nici cosinusul). "
        "Cheamă planificatorul în `pas_optimizare`, după `optimizator.step()`.",
    ),
    (
        lambda t, n: rata_la_pasul(t + 1, n),
        "La fiecare pas ai folosit rata pasului următor: avansezi programul înainte de pas. Pasul t "
        "folosește `rata_la_pasul(t, pasi_totali)`: întâi `optimizator.step()`, apoi `planificator.step()`.",
    ),
    (
        lambda t, n: rata_la_pasul(2 * t, n),
        "La pasul t ai folosit rata pasului 2t: programul avansează de două ori la fiecare pas (de "
        "exemplu, `planificator.step()` chemat și în `pas_optimizare`, și altundeva, sau de două ori).",
    ),
    (
        lambda t, n: rata_la_pasul(2 * t + 1, n),
        "La pasul t ai folosit rata pasului 2t + 1: programul avansează de două ori la fiecare pas, "
        "o dată înainte de `optimizator.step()` și o dată după.",
    ),
    (
        lambda t, n: rata_la_pasul(t, n) * RATA_MAXIMA,
        "Ratele tale sunt de RATA_MAXIMA ori (de 1 000 de ori) mai mici decât programul: `LambdaLR` "
        "înmulțește rata inițială (RATA_MAXIMA) cu ce întoarce funcția ta, deci funcția trebuie să "
        "întoarcă un factor: `lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA`.",
    ),
    (
        lambda t, n: rata_la_pasul(t, n) / RATA_MAXIMA,
        "Ratele tale sunt de 1 000 de ori mai mari decât programul: rata inițială din tensor trebuie să "
        "fie RATA_MAXIMA (`lr=torch.tensor(RATA_MAXIMA)`), iar `LambdaLR` o înmulțește cu factorul "
        "`rata_la_pasul(t, pasi_totali) / RATA_MAXIMA`.",
    ),
    (
        _fara_incalzire,
        "Ratele tale sunt un cosinus care pornește direct de la RATA_MAXIMA: lipsește încălzirea. "
        "Primii `max(1, pasi_totali // 10)` pași cresc liniar: folosește chiar `rata_la_pasul`.",
    ),
    (
        _doar_incalzire,
        "După încălzire, rata ta rămâne RATA_MAXIMA: lipsește coborârea în cosinus până la "
        "RATA_MAXIMA / 10. Folosește chiar `rata_la_pasul(t, pasi_totali)`.",
    ),
)


def _parametri_vector(parametri) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1).double() for p in parametri])


def _rata_din_actualizare(inainte, dupa, umbra) -> tuple[float, float]:
    """Rata folosită de un pas AdamW, citită din actualizare: AdamW e liniar în rată
    (p ← p − rata · (weight_decay · p + m̂ / (√v̂ + eps))), iar umbra a făcut același pas cu
    rata 1. Întoarce (rata, abaterea relativă de la o actualizare AdamW)."""
    d_cursant = dupa - inainte
    d_umbra = umbra - inainte
    numitor = float(d_umbra @ d_umbra)
    if numitor == 0:
        return 0.0, 0.0
    rata = float(d_cursant @ d_umbra) / numitor
    norma = float(d_cursant.norm())
    if norma == 0:
        return 0.0, 0.0
    abatere = float((d_cursant - rata * d_umbra).norm()) / norma
    return rata, abatere


def _explica_tip_optimizator(optimizator) -> None:
    if isinstance(optimizator, torch.optim.AdamW):
        return
    grup = optimizator.param_groups[0] if optimizator.param_groups else {}
    if isinstance(optimizator, torch.optim.Adam) and grup.get("decoupled_weight_decay"):
        return  # Adam(decoupled_weight_decay=True) e chiar AdamW
    nume = type(optimizator).__name__
    if isinstance(optimizator, torch.optim.Adam):
        raise GresealaCursant(
            f"Optimizatorul tău e {nume}, nu AdamW. Adam adaugă weight decay-ul la gradient (și de obicei "
            "e 0), AdamW îl aplică direct parametrilor (decuplat): rezultatele diferă. Folosește "
            "`torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))`."
        )
    raise GresealaCursant(
        f"Optimizatorul tău e {nume}, nu AdamW. Exercițiul cere "
        "`torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))`: pasul compilat al lui "
        "AdamW e cel pe care îl compari cu referința."
    )


def _verifica_optimizatorul(optimizator, model: nn.Module) -> None:
    """Tipul, parametrii (chiar ai modelului primit) și rata ținută într-un tensor."""
    if not isinstance(optimizator, torch.optim.Optimizer):
        raise GresealaCursant(
            f"Primul element întors trebuia să fie optimizatorul (un torch.optim.AdamW), dar e "
            f"{type(optimizator).__name__}."
        )
    _explica_tip_optimizator(optimizator)
    ai_modelului = {id(p) for p in model.parameters()}
    ai_optimizatorului = [p for grup in optimizator.param_groups for p in grup["params"]]
    if not any(id(p) in ai_modelului for p in ai_optimizatorului):
        raise GresealaCursant(
            "Optimizatorul tău nu are niciunul dintre parametrii modelului primit: e creat pe alt model "
            "(sau pe o copie). Creează-l pe `model.parameters()`, modelul dat funcției tale."
        )
    if {id(p) for p in ai_optimizatorului} != ai_modelului or len(ai_optimizatorului) != len(ai_modelului):
        raise GresealaCursant(
            f"Optimizatorul tău are {cu_substantiv(len(ai_optimizatorului), 'tensor-parametru', 'tensori-parametri')}, "
            f"dar modelul are {cu_substantiv(len(ai_modelului), 'tensor-parametru', 'tensori-parametri')}, iar "
            "mulțimile nu coincid. Creează-l pe `model.parameters()`, toți parametrii modelului primit."
        )
    for grup in optimizator.param_groups:
        rata = grup.get("lr")
        if not isinstance(rata, torch.Tensor):
            raise GresealaCursant(
                f"Rata de învățare e un {type(rata).__name__} ({_valoare(rata)}), nu un tensor. Dynamo pune un float "
                "în graf ca o constantă și îl păzește cu o gardă: când programul schimbă rata, garda cade și "
                "pasul se recompilează (în versiunile recente, a doua compilare face numărul simbolic; în cele "
                "vechi, fiecare rată nouă e o recompilare, iar după "
                f"{cu_substantiv(_limita_recompilari(), 'recompilare', 'recompilări')} Dynamo renunță și rulează eager). "
                "Ține rata într-un tensor: `lr=torch.tensor(RATA_MAXIMA)`; planificatorul îi "
                "schimbă atunci doar valoarea, pe loc."
            )
        if rata.numel() != 1:
            raise GresealaCursant(f"Tensorul ratei are forma {tuple(rata.shape)}: trebuie să fie un scalar.")
        if not rata.is_floating_point():
            raise GresealaCursant(
                f"Tensorul ratei e de tipul {rata.dtype}: un tensor întreg nu poate ține 0,001. Scrie "
                "`torch.tensor(RATA_MAXIMA)` (float32)."
            )
        if rata.dtype in (torch.float16, torch.bfloat16):
            raise GresealaCursant(
                f"Tensorul ratei e {rata.dtype}: rotunjește rata (bfloat16 are doar 8 biți de mantisă, "
                "deci o eroare de până la 0,4%, float16 nu ține bine ratele mici). Ține rata în float32, "
                "ca parametrii: `torch.tensor(RATA_MAXIMA)` (float64 merge și el)."
            )
        for cheie, implicit in _HIPERPARAMETRI_ADAMW.items():
            valoare = grup.get(cheie, implicit)
            if isinstance(valoare, torch.Tensor):
                valoare = valoare.item()
            if isinstance(implicit, tuple):
                egal = tuple(float(v) for v in valoare) == implicit
            else:
                egal = valoare == implicit
            if not egal:
                if cheie == "weight_decay" and valoare == 0:
                    detaliu = " AdamW fără weight decay e chiar Adam: lasă valoarea implicită (0,01)."
                else:
                    detaliu = " Lasă valorile implicite ale lui AdamW; exercițiul schimbă doar rata."
                raise GresealaCursant(
                    f"Optimizatorul tău are `{cheie}={valoare!r}`, dar referința e AdamW cu valoarea implicită "
                    f"`{cheie}={implicit!r}`.{detaliu}"
                )


def _despacheteaza_1(rezultat):
    if rezultat is None:
        raise GresealaCursant(
            "`pregateste_optimizarea` a întors None: ai uitat `return optimizator, pas_optimizare`?"
        )
    if isinstance(rezultat, torch.optim.Optimizer):
        raise GresealaCursant(
            "`pregateste_optimizarea` a întors doar optimizatorul: întoarce perechea "
            "`optimizator, pas_optimizare`."
        )
    if not isinstance(rezultat, (tuple, list)) or len(rezultat) != 2:
        descriere = f"{type(rezultat).__name__}" + (f" cu {len(rezultat)} elemente" if isinstance(rezultat, (tuple, list)) else "")
        raise GresealaCursant(
            f"`pregateste_optimizarea` trebuie să întoarcă perechea `(optimizator, pas_optimizare)`, dar a "
            f"întors {descriere}."
        )
    optimizator, pas = rezultat
    if callable(optimizator) and isinstance(pas, torch.optim.Optimizer):
        raise GresealaCursant(
            "Ai întors perechea în ordinea inversă: întâi optimizatorul, apoi funcția: "
            "`return optimizator, pas_optimizare`."
        )
    return optimizator, pas


def _descrie_rate(rate, n) -> str:
    randuri = []
    for t, rata in rate[:6]:
        randuri.append(
            f"  pasul {t}: ai folosit {numar_precis(rata)}, trebuia {numar_precis(rata_la_pasul(t, n))}"
        )
    return "\n".join(randuri)


def _aproape(a: float, b: float, toleranta: float = _TOLERANTA_RATA) -> bool:
    return abs(a - b) <= toleranta * max(abs(b), 1e-12)


def _greseala_numita_1(rate: list[tuple[int, float]], n: int) -> str | None:
    """Explicația unei greșeli cunoscute a programului, dacă ratele citite din actualizări sunt
    exact ale ei la toți pașii."""
    if all(r == 0 for _, r in rate):
        return (
            "Parametrii modelului nu s-au schimbat deloc: `pas_optimizare` nu face pasul optimizatorului "
            "(cheamă `optimizator.step()` în ea) sau șterge gradienții înaintea lui (`zero_grad()`): pasul "
            "folosește gradienții curenți, așa cum i-a lăsat `backward()` (aici, puși de verificare)."
        )
    for program, explicatie in _PROGRAME_GRESITE_1:
        # toleranță mai largă: la rate foarte mici, weight decay-ul (rata · 0,01) se pierde în rotunjirea
        # float32 a tensorului ratei
        if all(_aproape(r, program(t, n), _TOLERANTA_PROGRAM_GRESIT) for t, r in rate):
            return explicatie
    incalzire = max(1, n // 10)
    for total in range(2, 4 * n + 1):
        if total != n and all(_aproape(r, rata_la_pasul(t, total), _TOLERANTA_PROGRAM_GRESIT) for t, r in rate):
            return (
                f"Ratele tale sunt exact programul pentru {cu_substantiv(total, 'pas', 'pași')}, dar aici "
                f"`pasi_totali` era {format_numar(n)}: ai scris totalul fix în cod. Folosește argumentul primit: "
                "`rata_la_pasul(t, pasi_totali)`."
            )
    for fixa in range(1, 11):
        if fixa != incalzire and all(_aproape(r, _cu_incalzirea(t, n, fixa), _TOLERANTA_PROGRAM_GRESIT) for t, r in rate):
            return (
                f"Încălzirea ta are mereu {cu_substantiv(fixa, 'pas', 'pași')}, dar pentru `pasi_totali` = "
                f"{format_numar(n)} trebuie să aibă `max(1, pasi_totali // 10)` = {cu_substantiv(incalzire, 'pas', 'pași')}: "
                "ai scris lungimea încălzirii fix în cod. Calculeaz-o din `pasi_totali` sau folosește chiar "
                "`rata_la_pasul(t, pasi_totali)`."
            )
    return None


def _diagnostic_rate_1(rate: list[tuple[int, float]], n: int) -> str:
    """Ratele citite din actualizări sunt greșite: numește greșeala, dacă se potrivește la toți
    pașii, altfel arată primii pași greșiți."""
    numita = _greseala_numita_1(rate, n)
    if numita:
        return numita
    gresite = [(t, r) for t, r in rate if not _aproape(r, rata_la_pasul(t, n))]
    return (
        f"Rata de învățare nu urmează programul la {cu_substantiv(len(gresite), 'pas', 'pași')} din "
        f"{format_numar(n)} (am citit-o din actualizarea parametrilor: AdamW e liniar în rată):\n"
        f"{_descrie_rate(gresite, n)}\nPasul t (de la 0) folosește `rata_la_pasul(t, pasi_totali)`."
    )


def _limita_recompilari() -> int:
    from ..inspectie import nume_limita_recompilari

    return int(getattr(torch._dynamo.config, nume_limita_recompilari()))


def _mesaj_recompilare_1(pas: int, grafuri: int, optimizator, limita_atinsa: bool = False) -> str:
    rata = optimizator.param_groups[0].get("lr")
    if not isinstance(rata, torch.Tensor):
        cauza = (
            f"rata din param_groups a devenit un {type(rata).__name__} ({_valoare(rata)}). Un număr Python e o "
            "constantă în graf, păzită de o gardă, deci o rată nouă face garda să cadă și cere un graf nou. Nu pune un "
            "float în `param_groups[…]['lr']`: schimbă valoarea tensorului pe loc (`lr.fill_(…)`) sau lasă "
            "un planificator (LambdaLR) să o facă."
        )
    else:
        cauza = (
            "ceva citit în funcția compilată se schimbă la fiecare pas și intră în graf ca o constantă "
            "păzită de o gardă: un număr Python (o rată calculată ca float, un contor `t` pe care îl "
            "crești). Ține tot ce se schimbă în tensori (rata în tensorul din param_groups, schimbat pe loc "
            "cu `fill_`) sau lasă un planificator (LambdaLR) să schimbe rata."
        )
    if limita_atinsa:
        return (
            f"La pasul {pas}, Dynamo a atins limita de recompilări a lui `pas_optimizare` și a renunțat să-l "
            "mai compileze: rulează eager (pe procesor, pasul eager al unui optimizator compilat poate chiar "
            f"să eșueze). Cauza: {cauza}"
        )
    return (
        f"`pas_optimizare` s-a recompilat la pasul {pas} ({cu_substantiv(grafuri, 'graf capturat', 'grafuri capturate')} "
        f"până acum). Cauza: {cauza} Fiecare recompilare costă cât prima compilare, iar după "
        f"{cu_substantiv(_limita_recompilari(), 'recompilare', 'recompilări')} Dynamo renunță și rulează pasul eager."
    )


def _pasii_1(optimizator, pas_optimizare, model: nn.Module, n: int, generator: torch.Generator):
    """Rulează cei n pași ai cursantului, alături de referință (AdamW eager cu rata ca float) și de
    umbră (un AdamW cu rata 1, din care se citește rata folosită). Întoarce (ratele citite,
    abaterile, parametrii referinței, grafuri noi, cadre noi, și pentru fiecare pas dacă
    `optimizator.step()` a rulat compilat: True, False sau None dacă n-a fost chemat)."""
    parametri = list(model.parameters())
    referinta = copy.deepcopy(model)
    parametri_ref = list(referinta.parameters())
    optimizator_ref = torch.optim.AdamW(parametri_ref, lr=RATA_MAXIMA)
    umbra = copy.deepcopy(model)
    parametri_umbra = list(umbra.parameters())
    optimizator_umbra = torch.optim.AdamW(parametri_umbra, lr=1.0)
    grafuri_inainte, cadre_inainte = _grafuri(), _cadre()
    rate, abateri, compilat = [], [], []
    # Pasul optimizatorului chiar compilat? Un cârlig înaintea fiecărui `optimizator.step()`
    # notează `torch.compiler.is_compiling()`: Dynamo urmărește și cârligul, deci în pasul compilat
    # notează True (efectul lui, reluat la fiecare rulare a grafului), iar într-un pas eager, False.
    stare = {}

    def carlig(*_):
        stare["compilat"] = torch.compiler.is_compiling()

    inregistrare = optimizator.register_step_pre_hook(carlig)
    try:
        for t in range(n):
            stare.clear()
            _un_pas_1(t, n, optimizator, pas_optimizare, parametri, parametri_umbra, optimizator_umbra,
                      parametri_ref, optimizator_ref, generator, rate, abateri, grafuri_inainte)
            compilat.append((t, stare.get("compilat")))
    finally:
        inregistrare.remove()
    return rate, abateri, parametri_ref, _grafuri() - grafuri_inainte, _cadre() - cadre_inainte, compilat


def _un_pas_1(t, n, optimizator, pas_optimizare, parametri, parametri_umbra, optimizator_umbra, parametri_ref,
              optimizator_ref, generator, rate, abateri, grafuri_inainte) -> None:
    """Un pas al cursantului (pasul t din n), cu referința și umbra lui."""
    gradienti = [torch.randn(p.shape, generator=generator, dtype=p.dtype) for p in parametri]
    inainte = [p.detach().clone() for p in parametri]
    with torch.no_grad():
        for p, g in zip(parametri, gradienti):
            p.grad = g.clone()
        for p, q, g in zip(parametri_umbra, inainte, gradienti):
            p.copy_(q)
            p.grad = g.clone()
    grafuri_pas = _grafuri()
    jurnal = io.StringIO()
    limita = LIMITA_PRIMUL_PAS_1_S if t == 0 else LIMITA_PAS_1_S
    try:
        with _fara_jurnale_torch(jurnal):
            apeleaza(pas_optimizare, limita_s=limita, ce=f"`pas_optimizare()` la pasul {t}")
    except GresealaCursant as greseala:
        if _limita_atinsa(jurnal.getvalue()):
            raise GresealaCursant(_mesaj_recompilare_1(t, 0, optimizator, limita_atinsa=True)) from None
        eroare = getattr(greseala, "exceptie", None)
        if "a aruncat Unsupported" in str(greseala):
            planificator = (
                " Aici, planificatorul învelește `optimizator.step()` într-o funcție pe care Dynamo n-o "
                "urmărește (în lr_scheduler.py), deci graful se întrerupe acolo; pasul optimizatorului se "
                "compilează oricum, în graful lui. Scoate `fullgraph=True` sau schimbă rata fără "
                "planificator (`fill_` pe tensorul ratei)."
                if "lr_scheduler" in str(greseala) + str(eroare) else " Scoate `fullgraph=True`."
            )
            raise GresealaCursant(
                f"La pasul {t}, Dynamo n-a putut urmări `pas_optimizare` într-un singur graf, iar cu "
                f"`fullgraph=True` o întrerupere a grafului e o eroare.{planificator}"
                + (cu_originalul(traduce_exceptie(eroare)) if eroare is not None else "")
            ) from None
        raise
    if _limita_atinsa(jurnal.getvalue()):
        raise GresealaCursant(_mesaj_recompilare_1(t, 0, optimizator, limita_atinsa=True))
    if t >= PASI_CU_COMPILARE_PERMISA and _grafuri() > grafuri_pas:
        raise GresealaCursant(_mesaj_recompilare_1(t, _grafuri() - grafuri_inainte, optimizator))
    with torch.no_grad():
        optimizator_umbra.step()
        for grup in optimizator_ref.param_groups:
            grup["lr"] = rata_la_pasul(t, n)
        for p, g in zip(parametri_ref, gradienti):
            p.grad = g.clone()
        optimizator_ref.step()
    rata, abatere = _rata_din_actualizare(
        _parametri_vector(inainte), _parametri_vector(parametri), _parametri_vector(parametri_umbra)
    )
    rate.append((t, rata))
    abateri.append((t, abatere))


def _unelte_interzise_1() -> dict:
    """Uneltele cursului care fac deja partea exercițiului 1 de scris de tine: AdamW cu rata în
    tensor și pasul compilat (`antrenare.optimizare_cu_rata_tensor`)."""
    from ..capitole import cap06_modelul_intreg as antrenare

    return {antrenare.optimizare_cu_rata_tensor: "curs_compilare.capitole.cap06_modelul_intreg.optimizare_cu_rata_tensor"}


def _pregateste_1(pregateste_optimizarea, model, n):
    try:
        with _fara_jurnale_torch():
            return apeleaza(pregateste_optimizarea, model, n, limita_s=LIMITA_PREGATIRE_1_S,
                            ce="funcția ta `pregateste_optimizarea`", interzise=_unelte_interzise_1())
    except GresealaCursant as greseala:
        if "optimizare_cu_rata_tensor" in str(greseala) and "cheamă" in str(greseala):
            raise GresealaCursant(
                "Funcția ta cheamă `optimizare_cu_rata_tensor`, unealta cursului care face deja două treimi din "
                "exercițiu: AdamW cu rata într-un tensor și pasul compilat. Exact pe acestea le exersezi aici: "
                "scrie-le tu, `torch.optim.AdamW(model.parameters(), lr=torch.tensor(verificari.RATA_MAXIMA))` "
                "și un `pas_optimizare` compilat cu `torch.compile`, apoi adaugă planificatorul."
            ) from None
        raise


def _sesiune_1(pregateste_optimizarea, intrari: int, iesiri: int, n: int, generator: torch.Generator) -> int:
    """O sesiune a exercițiului 1: un model nou, un optimizator nou, `n` pași. Întoarce câte
    grafuri a capturat Dynamo."""
    # float64: rotunjirea rămâne mult sub cea mai mică actualizare, deci rata folosită la fiecare
    # pas se citește exact, oricât de mică ar fi
    model = nn.Linear(intrari, iesiri, dtype=torch.float64)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.1 * torch.randn(p.shape, generator=generator, dtype=torch.float64))
    torch._dynamo.reset()
    optimizator, pas_optimizare = _despacheteaza_1(_pregateste_1(pregateste_optimizarea, model, n))
    _verifica_optimizatorul(optimizator, model)
    if not callable(pas_optimizare):
        raise GresealaCursant(
            f"Al doilea element întors trebuia să fie funcția `pas_optimizare`, dar e "
            f"{type(pas_optimizare).__name__}."
        )
    rate, abateri, parametri_ref, grafuri, cadre, compilat = _pasii_1(optimizator, pas_optimizare, model, n, generator)
    rata_finala = optimizator.param_groups[0].get("lr")
    if not isinstance(rata_finala, torch.Tensor):
        raise GresealaCursant(_mesaj_recompilare_1(n - 1, grafuri, optimizator))
    corecte = all(_aproape(r, rata_la_pasul(t, n)) for t, r in rate)
    abatute = [(t, a) for t, a in abateri if a > 1e-3]
    if not corecte:
        numita = _greseala_numita_1(rate, n)
        if numita:
            raise GresealaCursant(numita)
    if abatute:
        t, a = abatute[0]
        raise GresealaCursant(
            f"La pasul {t}, parametrii nu s-au schimbat ca la un pas AdamW (nicio rată nu explică "
            "actualizarea): verifică hiperparametrii (betas, eps, weight_decay implicite), că "
            "`pas_optimizare` face exact un `optimizator.step()` și că nu schimbă parametrii sau "
            "gradienții în alt fel."
        )
    if not corecte:
        raise GresealaCursant(_diagnostic_rate_1(rate, n))
    for i, (p, q) in enumerate(zip(model.parameters(), parametri_ref)):
        compara_tensori(p.detach(), q.detach(), f"parametrul {i} după {cu_substantiv(n, 'pas', 'pași')}", **_TOLERANTA_1)
    if grafuri == 0 or cadre == 0:
        raise GresealaCursant(
            "Parametrii sunt corecți, dar `pas_optimizare` n-a trecut prin Dynamo: niciun graf capturat "
            f"în cei {cu_substantiv(n, 'pas', 'pași')}. Compileaz-o: `pas_optimizare = torch.compile(pas)` sau "
            "`@torch.compile` deasupra ei (fără `torch.compiler.disable`)."
        )
    eager = [t for t, c in compilat if c is False]
    if eager:
        raise GresealaCursant(
            f"Parametrii sunt corecți și Dynamo a compilat ceva în `pas_optimizare`, dar nu pasul optimizatorului: "
            f"`optimizator.step()` a rulat eager la {cu_substantiv(len(eager), 'pas', 'pași')} din {format_numar(n)} "
            f"(primul: pasul {eager[0]}). O funcție compilată chemată alături, sau `optimizator.step` ascuns de "
            "Dynamo (`torch.compiler.disable`), nu compilează pasul. Cheamă `optimizator.step()` chiar în "
            "funcția compilată cu `torch.compile`."
        )
    return grafuri


def exercitiul_1(pregateste_optimizarea) -> Rezultat:
    """Verifică `pregateste_optimizarea(model, pasi_totali) -> (optimizator, pas_optimizare)`.

    Ce se verifică, în două sesiuni (fiecare cu un model nou, un `nn.Linear` cu mărimi alese la
    întâmplare, în float64, pe procesor, un optimizator nou și un număr de pași ales la întâmplare:
    12–19, cu încălzirea de 1 pas, apoi 30–39, cu încălzirea de 3 pași), cu gradienți aleatori puși
    de verificare înaintea fiecărui pas:
    - `optimizator` e un `torch.optim.AdamW` pe exact parametrii modelului primit, cu valorile
      implicite (betas, eps, weight_decay = 0,01) și rata într-un tensor float32 (float64 e
      acceptat; float16 și bfloat16 nu: rotunjesc rata), construit de tine (nu cu
      `antrenare.optimizare_cu_rata_tensor`, care face deja partea aceasta);
    - după fiecare `pas_optimizare()`, parametrii sunt cei ai unui AdamW eager cu rata
      `rata_la_pasul(t, pasi_totali)` ca float (pasul t de la 0); rata folosită se citește din
      actualizare, ca greșeala programului să fie spusă pe nume (și o încălzire sau un total scrise
      fix în cod, pe care cele două sesiuni le deosebesc);
    - `pas_optimizare` trece prin Dynamo (cel puțin un graf capturat), chiar `optimizator.step()`
      rulează compilat (un cârlig înaintea pasului notează `torch.compiler.is_compiling()`; o
      funcție compilată chemată alături nu ajunge) și nu compilează nimic nou după primii doi pași
      (o rată ca float sau un contor Python în funcția compilată ar recompila la fiecare pas).
    Fiecare sesiune golește întâi cache-ul lui Dynamo (`torch._dynamo.reset()`), ca rezultatul să
    nu depindă de ce s-a compilat înainte în notebook."""

    def corp():
        rng = generator_aleator()
        intrari, iesiri = rng.randint(2, 5), rng.randint(2, 4)
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        sesiuni = []
        for minim, maxim in SESIUNI_1:
            n = rng.randint(minim, maxim)
            sesiuni.append((n, _sesiune_1(pregateste_optimizarea, intrari, iesiri, n, generator)))
        (n1, g1), (n2, g2) = sesiuni
        return (
            f"În ambele sesiuni ({cu_substantiv(n1, 'pas', 'pași')}, cu încălzirea de {cu_substantiv(max(1, n1 // 10), 'pas', 'pași')}, "
            f"și {cu_substantiv(n2, 'pas', 'pași')}, cu încălzirea de {cu_substantiv(max(1, n2 // 10), 'pas', 'pași')}), "
            "parametrii după fiecare pas sunt cei ai unui AdamW eager cu rata programului, iar "
            "`optimizator.step()` a rulat compilat. Dynamo a capturat "
            f"{cu_substantiv(g1, 'graf', 'grafuri')}, apoi {cu_substantiv(g2, 'graf', 'grafuri')}, doar la primii pași: "
            "schimbarea ratei nu mai recompilează, fiindcă rata e un tensor, o intrare a grafului, nu o constantă din el."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_VERIFICARE_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: alege modul pentru o constrângere de servire
# ---------------------------------------------------------------------------------------------

NUME_MODURI = ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
LIMITA_APEL_2_S = 2.0
LIMITA_VERIFICARE_2_S = 30.0
#: Cât de departe trebuie să fie al doilea mod de primul (relativ), ca un caz să nu fie o egalitate.
_DEPARTARE_MINIMA_2 = 0.01

#: Cifrele din enunț: cinci moduri, cu cifre alese pentru exercițiu, 200 000 de cereri, latența de
#: cel mult 10 ms pe cerere, memoria cerută de cel mult 1 024 MiB. Memoria cerută a unui mod e cea
#: din capitol: cât crește memoria alocată la un apel, plus, la modurile cu grafuri CUDA, grupul de
#: memorie rezervat de grafurile lor. Răspunsul: „max-autotune-no-cudagraphs” (eager e prea lent pe
#: cerere, reduce-overhead și max-autotune cer prea multă memorie, cu grupul grafurilor CUDA, iar
#: dintre default și max-autotune-no-cudagraphs, al doilea își recuperează primul apel mai scump).
EXEMPLU_2 = {
    "masuratori": {
        "eager": {"prima_s": 0.05, "pe_apel_ms": 21.0, "memorie_mib": 950.0},
        "default": {"prima_s": 38.0, "pe_apel_ms": 9.5, "memorie_mib": 780.0},
        "reduce-overhead": {"prima_s": 45.0, "pe_apel_ms": 4.2, "memorie_mib": 1350.0},
        "max-autotune": {"prima_s": 210.0, "pe_apel_ms": 3.6, "memorie_mib": 1500.0},
        "max-autotune-no-cudagraphs": {"prima_s": 150.0, "pe_apel_ms": 8.1, "memorie_mib": 800.0},
    },
    "cereri": 200_000,
    "latenta_max_ms": 10.0,
    "memorie_max_mib": 1024.0,
}


def _cost_2(m: dict, n: int) -> float:
    return cost_total(m["prima_s"], m["pe_apel_ms"] / 1000, n)


def _alege(masuratori, cereri, latenta, memorie, cost=_cost_2, strict=False, fara_latenta=False,
           fara_memorie=False):
    """Referința (și, cu opțiunile, greșelile cunoscute): modul cu cel mai mic cost total dintre
    cele care respectă constrângerile."""
    def valid(m):
        if strict:
            return (fara_latenta or m["pe_apel_ms"] < latenta) and (fara_memorie or m["memorie_mib"] < memorie)
        return (fara_latenta or m["pe_apel_ms"] <= latenta) and (fara_memorie or m["memorie_mib"] <= memorie)

    candidati = [(cost(m, cereri), nume) for nume, m in masuratori.items() if valid(m)]
    return min(candidati)[1] if candidati else None


def _alege_corect(caz) -> str | None:
    return _alege(caz["masuratori"], caz["cereri"], caz["latenta_max_ms"], caz["memorie_max_mib"])


def _departare_2(caz) -> float:
    """Diferența relativă dintre primele două moduri valide (inf dacă e unul singur sau niciunul)."""
    valide = sorted(
        _cost_2(m, caz["cereri"]) for m in caz["masuratori"].values()
        if m["pe_apel_ms"] <= caz["latenta_max_ms"] and m["memorie_mib"] <= caz["memorie_max_mib"]
    )
    if len(valide) < 2:
        return math.inf
    return (valide[1] - valide[0]) / valide[0]


#: Greșelile cunoscute: (nume, alegerea greșită, explicația). Una e numită doar dacă alegerile
#: cursantului sunt exact ale ei în toate cazurile.
_GRESELI_2 = (
    (
        "fara_compilare",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"],
                         cost=lambda m, n: m["pe_apel_ms"]),
        "Alegerile tale sunt exact modul cel mai rapid pe apel: ignori timpul primului apel (compilarea). "
        "La puține cereri, compilarea nu se amortizează și câștigă eager.",
    ),
    (
        "doar_prima",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"],
                         cost=lambda m, n: m["prima_s"]),
        "Alegerile tale sunt exact modul cu primul apel cel mai ieftin: ignori timpul pe apel, care la "
        "multe cereri contează cel mai mult.",
    ),
    (
        "fara_memorie",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"], fara_memorie=True),
        "Alegerile tale ignoră constrângerea de memorie: un mod cu memorie_mib > memorie_max_mib nu "
        "încape pe server, oricât de ieftin ar fi.",
    ),
    (
        "fara_latenta",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"], fara_latenta=True),
        "Alegerile tale ignoră constrângerea de latență: un mod cu pe_apel_ms > latenta_max_ms răspunde "
        "prea încet la fiecare cerere, oricât de ieftin ar fi în total.",
    ),
    (
        "fara_constrangeri",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"],
                         fara_latenta=True, fara_memorie=True),
        "Alegerile tale ignoră ambele constrângeri (latența și memoria): întâi păstrezi doar modurile cu "
        "pe_apel_ms ≤ latenta_max_ms și memorie_mib ≤ memorie_max_mib, apoi alegi costul cel mai mic.",
    ),
    (
        "strict",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"], strict=True),
        "Alegerile tale sunt bune peste tot, mai puțin unde un mod e exact la limită: constrângerile sunt "
        "„cel mult” (≤), deci un mod cu pe_apel_ms == latenta_max_ms (sau memoria exact la limită) e valid. "
        "Ai folosit o comparație strictă (<).",
    ),
    (
        "cereri_dupa_primul",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"],
                         cost=lambda m, n: m["prima_s"] + n * m["pe_apel_ms"] / 1000),
        "Alegerile tale sunt exact ce dă costul socotit ca primul apel + cereri · timpul pe apel: ai numărat "
        "cererile ca pe apelurile de după primul. Primul apel e chiar prima cerere: totalul după n cereri e "
        "prima_s + (n − 1) · pe_apel (`amortizare.cost_total`).",
    ),
    (
        "ms_ca_s",
        lambda c: _alege(c["masuratori"], c["cereri"], c["latenta_max_ms"], c["memorie_max_mib"],
                         cost=lambda m, n: m["prima_s"] + (n - 1) * m["pe_apel_ms"]),
        "Alegerile tale sunt exact ce dă costul cu milisecunde adunate la secunde: prima_s e în secunde, "
        "pe_apel_ms în milisecunde. Împarte pe_apel_ms la 1 000 înainte să-l aduni.",
    ),
)


def _masuratori_aleatoare(rng, nume: list[str], eager_ms: float) -> dict:
    """Cifrele modurilor `nume` (în altă ordine la fiecare caz), pornind de la timpul pe apel al lui
    eager: modurile compilate sunt mai rapide pe apel și au primul apel mai scump. Memoria e cea
    cerută de mod: fuziunea o scade puțin (default), grupul grafurilor CUDA o crește
    (reduce-overhead, max-autotune)."""
    default_ms = eager_ms * rng.uniform(0.45, 0.8)
    fara_cg_ms = default_ms * rng.uniform(0.8, 0.97)
    reduce_ms = default_ms * rng.uniform(0.3, 0.75)
    autotune_ms = min(reduce_ms, fara_cg_ms) * rng.uniform(0.75, 0.97)
    prima_default = rng.uniform(8, 40)
    memorie = rng.uniform(300, 4000)
    valori = {
        "eager": (eager_ms / 1000 * rng.uniform(1.2, 3), eager_ms, memorie),
        "default": (prima_default, default_ms, memorie * rng.uniform(0.8, 1.0)),
        "reduce-overhead": (prima_default + rng.uniform(2, 15), reduce_ms, memorie * rng.uniform(1.2, 2.0)),
        "max-autotune-no-cudagraphs": (prima_default + rng.uniform(30, 200), fara_cg_ms, memorie * rng.uniform(0.8, 1.05)),
    }
    valori["max-autotune"] = (
        valori["max-autotune-no-cudagraphs"][0] + rng.uniform(5, 40), autotune_ms,
        valori["reduce-overhead"][2] * rng.uniform(1.0, 1.15),
    )
    ordine = list(dict.fromkeys(nume))
    rng.shuffle(ordine)
    return {
        n: {"prima_s": float(round(valori[n][0], 3 if valori[n][0] < 1 else 1)),
            "pe_apel_ms": float(round(valori[n][1], 2)),
            "memorie_mib": float(round(valori[n][2]))}
        for n in ordine
    }


#: Cazurile cu același număr de cereri și alte costuri: la aceleași cereri câștigă, pe rând, modul cu
#: primul apel cel mai ieftin, cel mai rapid pe apel și unul dintre ele (niciunul dintre aceste două).
#: O alegere care depinde doar de numărul cererilor (un prag: sub el, primul apel ieftin; peste el,
#: cel mai rapid pe apel) greșește măcar unul dintre ele, oricare i-ar fi pragul.
_FELURI_ACELASI_N = ("acelasi_n_prima", "acelasi_n_apel", "acelasi_n_mijloc")


def _caz_aleator(rng, fel: str, cereri: int | None = None) -> dict:
    """Un caz al exercițiului 2, de felul cerut, cu valori plauzibile (milisecunde pe cerere la lot
    1 pe un GPU; la felul „un_apel_in_plus”, secunde pe cerere, ca la loturi mari). `cereri` fixează
    numărul cererilor (la felurile „acelasi_n_…”)."""
    for _ in range(5000):
        nume = ["eager"] + rng.sample(NUME_MODURI[1:], rng.randint(2, 4))
        if fel in ("amortizat", "cel_mai_scump", "memoria") and rng.random() < 0.25:
            nume = nume[1:]
            if len(nume) < 3:
                nume = ["eager"] + nume
        if fel == "fara_eager":
            nume = nume[1:]
        if fel in _FELURI_ACELASI_N:
            # Timpul pe apel al lui eager, ales pe o plajă largă (de la lot 1 la loturi mari), ca la
            # aceleași cereri să câștige când primul apel ieftin, când cel mai rapid pe apel.
            eager_ms = 10 ** rng.uniform(math.log10(0.5), math.log10(3000))
        elif fel == "un_apel_in_plus":
            eager_ms = rng.uniform(400, 3000)
        else:
            eager_ms = rng.uniform(2, 40)
        masuratori = _masuratori_aleatoare(rng, nume, eager_ms)
        lente = max(m["pe_apel_ms"] for m in masuratori.values())
        mari = max(m["memorie_mib"] for m in masuratori.values())
        latenta, memorie_max = float(math.ceil(lente + 1)), float(math.ceil(mari + 100))
        if fel in _FELURI_ACELASI_N:
            cereri_caz = cereri
        elif fel == "fara_eager":
            cereri_caz = int(10 ** rng.uniform(1, 6))
        elif fel == "amortizat":
            cereri_caz = int(10 ** rng.uniform(5, 7))
        elif fel == "eager_castiga":
            cereri_caz = int(10 ** rng.uniform(1, 3.3))
        elif fel == "un_apel":
            cereri_caz = 1
        elif fel == "cel_mai_scump":
            cereri_caz = int(10 ** rng.uniform(6.5, 8))
        elif fel == "memoria":
            cereri_caz = int(10 ** rng.uniform(5, 7))
            memorii = sorted(m["memorie_mib"] for m in masuratori.values())
            i = rng.randrange(1, len(memorii))
            memorie_max = float(round((memorii[i - 1] + memorii[i]) / 2))
        elif fel == "latenta":
            cereri_caz = int(10 ** rng.uniform(1, 3))
            pasi = sorted(m["pe_apel_ms"] for m in masuratori.values())
            i = rng.randrange(1, len(pasi))
            latenta = float(round((pasi[i - 1] + pasi[i]) / 2, 2))
        elif fel == "niciunul":
            cereri_caz = int(10 ** rng.uniform(3, 6))
            # latența elimină modurile lente, memoria pe cele rapide: împreună, niciunul
            pasi = sorted(m["pe_apel_ms"] for m in masuratori.values())
            latenta = float(round((pasi[0] + pasi[1]) / 2, 2))
            rapid = min(masuratori.values(), key=lambda m: m["pe_apel_ms"])
            memorie_max = float(rapid["memorie_mib"] - 1)
        elif fel == "un_apel_in_plus":
            cereri_caz = rng.randint(3, 80)
        elif fel == "la_limita":
            cereri_caz = int(10 ** rng.uniform(2, 7))
        else:
            raise ValueError(fel)
        if cereri_caz is None:
            raise ValueError(f"felul „{fel}” cere numărul cererilor")
        caz = {"fel": fel, "masuratori": masuratori, "cereri": cereri_caz, "latenta_max_ms": latenta,
               "memorie_max_mib": memorie_max}
        if fel == "la_limita":
            castigator = _alege_corect(caz)
            if castigator is None:
                continue
            caz["latenta_max_ms"] = masuratori[castigator]["pe_apel_ms"]
            if rng.random() < 0.5:
                caz["memorie_max_mib"] = masuratori[castigator]["memorie_mib"]
        if _caz_bun(caz):
            return caz
    raise RuntimeError(f"n-am putut genera un caz „{fel}”")


def _prag_rentabilitate(a: dict, b: dict) -> float | None:
    """Numărul de cereri la care costurile totale a două moduri se egalează (None dacă unul e mai
    ieftin oricâte cereri ar fi): prima_a + (n − 1) · pe_a = prima_b + (n − 1) · pe_b."""
    diferenta_pe_apel = (a["pe_apel_ms"] - b["pe_apel_ms"]) / 1000
    if diferenta_pe_apel == 0:
        return None
    n = 1 + (b["prima_s"] - a["prima_s"]) / diferenta_pe_apel
    return n if n > 1 else None


def _pereche_rentabilitate(rng, numar: int, minim: float, maxim: float) -> list[dict]:
    """Două cazuri cu aceleași moduri și aceleași constrângeri, cu cereri de o parte și de alta a
    unui prag de rentabilitate între `minim` și `maxim` cereri (ales la întâmplare între două moduri
    care câștigă pe rând): sub prag câștigă un mod, peste prag altul. Numai costul total calculat la
    numărul dat de cereri le alege pe amândouă bine; o regulă cu praguri fixe (sub atâtea cereri,
    primul apel ieftin; peste, cel mai rapid pe apel) le nimerește doar dacă pragul ei cade chiar
    între ele."""
    for _ in range(5000):
        nume = ["eager"] + rng.sample(NUME_MODURI[1:], rng.randint(2, 4))
        eager_ms = 10 ** rng.uniform(math.log10(0.5), math.log10(3000))
        masuratori = _masuratori_aleatoare(rng, nume, eager_ms)
        latenta = float(math.ceil(max(m["pe_apel_ms"] for m in masuratori.values()) + 1))
        memorie_max = float(math.ceil(max(m["memorie_mib"] for m in masuratori.values()) + 100))
        praguri = [
            n for a in masuratori for b in masuratori if a < b
            for n in [_prag_rentabilitate(masuratori[a], masuratori[b])] if n is not None and minim <= n <= maxim
        ]
        rng.shuffle(praguri)
        for prag in praguri:
            sub = {"fel": f"rentabilitate_{numar}_sub", "masuratori": masuratori, "cereri": max(2, int(prag * rng.uniform(0.6, 0.85))),
                   "latenta_max_ms": latenta, "memorie_max_mib": memorie_max}
            peste = {"fel": f"rentabilitate_{numar}_peste", "masuratori": copy.deepcopy(masuratori),
                     "cereri": int(math.ceil(prag * rng.uniform(1.15, 1.6))), "latenta_max_ms": latenta,
                     "memorie_max_mib": memorie_max}
            if _caz_bun(sub) and _caz_bun(peste) and _alege_corect(sub) != _alege_corect(peste):
                return [sub, peste]
    raise RuntimeError("n-am putut genera perechea de cazuri de o parte și de alta a pragului de rentabilitate")


def _valide_2(caz) -> dict:
    return {
        nume: m for nume, m in caz["masuratori"].items()
        if m["pe_apel_ms"] <= caz["latenta_max_ms"] and m["memorie_mib"] <= caz["memorie_max_mib"]
    }


def _extreme_2(caz) -> tuple[str | None, str | None]:
    """Dintre modurile valide: cel cu primul apel cel mai ieftin și cel mai rapid pe apel."""
    valide = _valide_2(caz)
    if not valide:
        return None, None
    return (min(valide, key=lambda n: valide[n]["prima_s"]), min(valide, key=lambda n: valide[n]["pe_apel_ms"]))


def _caz_bun(caz) -> bool:
    corect = _alege_corect(caz)
    if _departare_2(caz) < _DEPARTARE_MINIMA_2:
        return False
    m, fel = caz["masuratori"], caz["fel"]

    def greseala(nume):
        return next(f for n, f, _ in _GRESELI_2 if n == nume)(caz)

    if fel in _FELURI_ACELASI_N:
        prima, apel = _extreme_2(caz)
        if corect is None or len(_valide_2(caz)) < 3 or prima == apel:
            return False
        if fel == "acelasi_n_prima":
            return corect == prima
        if fel == "acelasi_n_apel":
            return corect == apel
        return corect not in (prima, apel)
    if fel == "fara_eager":
        return corect is not None and "eager" not in m and len(m) >= 2
    if fel.startswith("rentabilitate_"):
        return corect is not None
    if fel == "amortizat":
        return corect not in (None, "eager")
    if fel == "eager_castiga":
        return corect == "eager" and greseala("fara_compilare") != "eager"
    if fel == "un_apel":
        return corect is not None and greseala("fara_compilare") != corect
    if fel == "cel_mai_scump":
        return corect is not None and corect == max(m, key=lambda k: m[k]["prima_s"]) and len(m) >= 3
    if fel == "memoria":
        return corect is not None and greseala("fara_memorie") not in (None, corect)
    if fel == "latenta":
        return corect is not None and greseala("fara_latenta") not in (None, corect)
    if fel == "niciunul":
        return corect is None and greseala("fara_latenta") is not None and greseala("fara_memorie") is not None
    if fel == "un_apel_in_plus":
        return corect is not None and greseala("cereri_dupa_primul") != corect
    if fel == "la_limita":
        return corect is not None and greseala("strict") != corect
    return False


_FELURI_2 = ("amortizat", "eager_castiga", "un_apel", "cel_mai_scump", "memoria", "latenta", "niciunul",
             "un_apel_in_plus", "la_limita", "fara_eager", *_FELURI_ACELASI_N)

_ETICHETE_2 = {
    "amortizat": "multe cereri",
    "eager_castiga": "puține cereri",
    "un_apel": "o singură cerere",
    "cel_mai_scump": "foarte multe cereri",
    "memoria": "memoria limitată",
    "latenta": "latența limitată",
    "niciunul": "constrângeri prea strânse",
    "un_apel_in_plus": "loturi mari, puține cereri",
    "la_limita": "un mod exact la limită",
    "fara_eager": "fără eager printre măsurători",
    "acelasi_n_prima": "aceleași cereri, alte costuri (1)",
    "acelasi_n_apel": "aceleași cereri, alte costuri (2)",
    "acelasi_n_mijloc": "aceleași cereri, alte costuri (3)",
    **{f"rentabilitate_{i}_{parte}": f"aceleași moduri, puțin {parte} un prag de rentabilitate ({i})"
       for i in range(1, 4) for parte in ("sub", "peste")},
    "enunt": "cifrele din enunț",
}

#: Unde pot cădea pragurile de rentabilitate ale perechilor de cazuri (în cereri): câte o pereche
#: la puține, la mijloc și la foarte multe cereri.
_PRAGURI_RENTABILITATE_2 = ((20, 1000), (1000, 50_000), (50_000, 5e6))

#: De câte ori se reface setul de cazuri, până când fiecare greșeală cunoscută e prinsă.
_INCERCARI_CAZURI_2 = 200


def _set_bun_2(cazuri) -> bool:
    """Setul separă răspunsurile corecte de cele greșite, oricare ar fi cazurile alese: fiecare mod
    lipsește din măsurătorile măcar unui caz (un răspuns care presupune că un mod e mereu acolo
    greșește), fiecare greșeală cunoscută dă alt răspuns decât referința undeva, iar oricare două
    greșeli se deosebesc între ele (ca un diagnostic să nu fie ambiguu)."""
    if any(all(nume in c["masuratori"] for c in cazuri) for nume in NUME_MODURI):
        return False
    corecte = tuple(_alege_corect(c) for c in cazuri)
    raspunsuri = [tuple(f(c) for c in cazuri) for _, f, _ in _GRESELI_2]
    return all(r != corecte for r in raspunsuri) and len(set(raspunsuri)) == len(raspunsuri)


def _cazuri_2(rng) -> list[dict]:
    """Cazurile: cifrele din enunț plus câte unul din fiecare fel, cu cifrele alese la întâmplare în
    jurul situației pe care o separă felul (felurile „acelasi_n_…” au același număr de cereri, ales
    la întâmplare). Setul e refăcut până când separă răspunsurile corecte de toate greșelile
    cunoscute (`_set_bun_2`)."""
    enunt = dict(copy.deepcopy(EXEMPLU_2), fel="enunt")
    for _ in range(_INCERCARI_CAZURI_2):
        cereri = int(10 ** rng.uniform(2.5, 4.5))
        cazuri = [enunt] + [
            _caz_aleator(rng, fel, cereri if fel in _FELURI_ACELASI_N else None) for fel in _FELURI_2
        ]
        for numar, (minim, maxim) in enumerate(_PRAGURI_RENTABILITATE_2, 1):
            cazuri += _pereche_rentabilitate(rng, numar, minim, maxim)
        if _set_bun_2(cazuri):
            rng.shuffle(cazuri)
            return cazuri
    raise RuntimeError("n-am putut alege un set de cazuri care să separe toate greșelile")


def _descrie_caz_2(caz) -> str:
    moduri = "; ".join(
        f"{nume}: primul apel {format_timp(m['prima_s'])}, {format_timp(m['pe_apel_ms'] / 1000)} pe apel, "
        f"{format_numar(m['memorie_mib'])} MiB"
        for nume, m in caz["masuratori"].items()
    )
    return (
        f"cazul „{_ETICHETE_2[caz['fel']]}” ({cu_substantiv(caz['cereri'], 'cerere', 'cereri')}, latența de cel mult "
        f"{format_timp(caz['latenta_max_ms'] / 1000)}, memoria de cel mult {format_numar(caz['memorie_max_mib'])} MiB; "
        f"{moduri})"
    )


#: Referințele verificării, care dau chiar răspunsul: un răspuns care le cheamă e respins.
_REFERINTE_2 = {_alege: "verificari._alege", _alege_corect: "verificari._alege_corect"}


def _raspuns_2(functie, caz):
    """Răspunsul brut al cursantului pentru un caz (excepțiile și timpul depășit, explicate)."""
    argumente = (copy.deepcopy(caz["masuratori"]), caz["cereri"], caz["latenta_max_ms"], caz["memorie_max_mib"])
    try:
        return apeleaza(functie, *argumente, limita_s=LIMITA_APEL_2_S, ce="funcția ta `alege_modul`",
                        interzise=_REFERINTE_2)
    except GresealaCursant as greseala:
        if str(greseala) == NESCRIS:
            raise
        eroare = getattr(greseala, "exceptie", None)
        mod = eroare.args[0] if isinstance(eroare, KeyError) and eroare.args else None
        if isinstance(mod, str) and mod in NUME_MODURI and mod not in caz["masuratori"]:
            linie = linia_cursantului(eroare)
            unde = f", la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
            raise GresealaCursant(
                f"Pentru {_descrie_caz_2(caz)}: funcția ta caută modul {mod!r}, care nu e printre măsurătorile "
                f"acestui caz (KeyError{unde}). Nu presupune că un mod e mereu acolo: modurile măsurate diferă de "
                "la un caz la altul. Lucrează doar cu cheile din `masuratori` (`for mod, m in masuratori.items()`)."
            ) from None
        raise GresealaCursant(f"Pentru {_descrie_caz_2(caz)}: {greseala}") from None


def _verifica_raspunsul_2(caz, raspuns) -> None:
    """Un răspuns trebuie să fie None sau chiar o cheie din `masuratori`."""
    if raspuns is None or isinstance(raspuns, str) and raspuns in caz["masuratori"]:
        return
    eticheta = f"Pentru cazul „{_ETICHETE_2[caz['fel']]}”"
    if isinstance(raspuns, str):
        chei = ", ".join(repr(k) for k in caz["masuratori"])
        raise GresealaCursant(
            f"{eticheta} ai întors {raspuns!r}, care nu e unul dintre modurile din dict ({chei}). Întoarce "
            "chiar cheia din `masuratori` (sau None dacă niciun mod nu respectă constrângerile)."
        )
    if isinstance(raspuns, dict):
        raise GresealaCursant(
            f"{eticheta} ai întors un dict (măsurătorile unui mod), nu numele lui. Întoarce cheia din "
            "`masuratori`, de exemplu 'default'."
        )
    raise GresealaCursant(
        f"{eticheta} ai întors un {type(raspuns).__name__} ({repr(raspuns)[:80]}). Trebuia numele modului (un "
        "str, cheia din `masuratori`) sau None."
    )


def _explica_caz_2(caz, obtinut, asteptat) -> str:
    masuratori, n = caz["masuratori"], caz["cereri"]

    def total(nume):
        return f"{nume}: {format_timp(_cost_2(masuratori[nume], n))} în total"

    inceput = f"Pentru {_descrie_caz_2(caz)} ai ales {obtinut!r}, dar trebuia {asteptat!r}."
    if asteptat is None:
        motiv = (
            f" {obtinut!r} nu respectă constrângerile: "
            + ("latența lui pe apel depășește limita" if masuratori[obtinut]["pe_apel_ms"] > caz["latenta_max_ms"]
               else "memoria lui depășește limita")
            + ", și niciun alt mod nu le respectă pe amândouă: întoarce None."
        )
    elif obtinut is None:
        motiv = f" {asteptat!r} respectă ambele constrângeri ({total(asteptat)})."
    else:
        m = masuratori[obtinut]
        if m["pe_apel_ms"] > caz["latenta_max_ms"]:
            motiv = f" {obtinut!r} are {format_timp(m['pe_apel_ms'] / 1000)} pe apel, peste limita de latență."
        elif m["memorie_mib"] > caz["memorie_max_mib"]:
            motiv = f" {obtinut!r} cere {format_numar(m['memorie_mib'])} MiB, peste limita de memorie."
        else:
            motiv = f" După {cu_substantiv(n, 'cerere', 'cereri')}: {total(obtinut)}, {total(asteptat)}."
            prag = _prag_rentabilitate(m, masuratori[asteptat])
            if prag is not None:
                motiv += f" Costurile lor totale se egalează la vreo {cu_substantiv(round(prag), 'cerere', 'cereri')}."
    return inceput + motiv


def _indiciu_cereri_2(cazuri, obtinute) -> str:
    """Un indiciu pentru alegerea după numărul cererilor, nu după costuri: în cazurile cu același
    număr de cereri ai ales mereu un mod extrem (primul apel cel mai ieftin sau cel mai rapid pe
    apel), ori, de o parte și de alta a unui prag de rentabilitate, același mod."""
    trei = [(c, o) for c, o in zip(cazuri, obtinute) if c["fel"] in _FELURI_ACELASI_N]
    if any(o != _alege_corect(c) for c, o in trei) and all(o in _extreme_2(c) for c, o in trei):
        return (
            f"În cele trei cazuri „aceleași cereri, alte costuri”, numărul cererilor e același "
            f"({format_numar(trei[0][0]['cereri'])}), dar câștigă, pe rând, modul cu primul apel cel mai ieftin, cel "
            "mai rapid pe apel și unul dintre ele: ai ales de fiecare dată unul dintre cele două extreme. Alegerea "
            "nu depinde doar de numărul cererilor, ci de costurile fiecărui mod: calculează costul total al "
            "fiecăruia pentru `cereri` și alege-l pe cel mai mic."
        )
    pe_fel = {c["fel"]: (c, o) for c, o in zip(cazuri, obtinute)}
    for numar in range(1, len(_PRAGURI_RENTABILITATE_2) + 1):
        (sub, o_sub), (peste, o_peste) = pe_fel[f"rentabilitate_{numar}_sub"], pe_fel[f"rentabilitate_{numar}_peste"]
        a, b = _alege_corect(sub), _alege_corect(peste)
        if o_sub == o_peste and (o_sub, o_peste) != (a, b):
            prag = _prag_rentabilitate(sub["masuratori"][a], sub["masuratori"][b])
            unde = f" (vreo {cu_substantiv(round(prag), 'cerere', 'cereri')})" if prag else ""
            return (
                f"În cazurile „aceleași moduri, puțin sub/peste un prag de rentabilitate ({numar})”, modurile sunt "
                f"aceleași, iar cererile ({format_numar(sub['cereri'])} și {format_numar(peste['cereri'])}) sunt de o "
                f"parte și de alta a pragului dintre {a!r} și {b!r}{unde}: sub el câștigă {a!r}, peste el {b!r}, "
                f"dar tu ai ales {o_sub!r} în ambele. Un prag fix pe numărul cererilor nu-l nimerește: calculează "
                "costul total al fiecărui mod pentru `cereri` date."
            )
    return ""


def exercitiul_2(alege_modul) -> Rezultat:
    """Verifică `alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib) -> str | None`:
    dintre modurile cu `pe_apel_ms <= latenta_max_ms` și `memorie_mib <= memorie_max_mib` (limitele
    sunt incluse), cel cu cel mai mic cost total după `cereri` apeluri,
    `amortizare.cost_total(prima_s, pe_apel_ms / 1000, cereri)`; None dacă niciunul nu le respectă.
    `memorie_mib` e memoria cerută de mod: creșterea memoriei la un apel plus, la modurile cu
    grafuri CUDA, grupul lor de memorie. Un răspuns care cheamă referința verificării
    (`verificari._alege`, `verificari._alege_corect`) e respins.

    Cazurile (2–5 moduri, în altă ordine la fiecare rulare) au cifrele alese la întâmplare, dar
    felurile lor sunt mereu aceleași, fiecare în jurul situației pe care o separă, plus cifrele din
    enunț (`EXEMPLU_2`): multe cereri (câștigă un mod compilat), puține sau una singură (câștigă
    eager: compilarea nu se amortizează), foarte multe (câștigă modul cu primul apel cel mai scump),
    memoria sau latența care elimină câștigătorul, niciun mod valid, un mod exact la limită; un caz
    fără eager (și fiecare mod lipsește din măsurătorile măcar unui caz); trei cazuri cu același
    număr de cereri, în care câștigă, pe rând, primul apel cel mai ieftin, cel mai rapid pe apel și
    niciunul dintre ei; trei perechi cu aceleași moduri, cu cereri puțin sub și puțin peste un prag
    de rentabilitate (la puține, la mijloc și la foarte multe cereri). Setul e refăcut până când
    fiecare greșeală cunoscută greșește măcar un caz (`_set_bun_2`), deci verdictul nu depinde de
    noroc. Primele două moduri diferă mereu cu cel puțin 1%."""

    def corp():
        cazuri = _cazuri_2(generator_aleator())
        obtinute = [_raspuns_2(alege_modul, caz) for caz in cazuri]
        asteptate = [_alege_corect(caz) for caz in cazuri]
        if len({repr(o) for o in obtinute}) == 1 and isinstance(obtinute[0], str):
            raise GresealaCursant(
                f"Întorci mereu {obtinute[0]!r}, oricare ar fi cifrele și constrângerile"
                + (" (și când modul nici nu e în dict)" if any(obtinute[0] not in c["masuratori"] for c in cazuri) else "")
                + ". Alegerea depinde de cereri (câte apeluri amortizează compilarea), de latență și de "
                "memorie: filtrează modurile după constrângeri, apoi alege costul total cel mai mic."
            )
        for caz, obtinut in zip(cazuri, obtinute):
            _verifica_raspunsul_2(caz, obtinut)
        if obtinute == asteptate:
            return (
                f"Toate cele {cu_substantiv(len(cazuri), 'caz', 'cazuri')} ies bine, inclusiv cele fără niciun mod "
                "valid și cele în care compilarea nu se amortizează. Costul unui mod e primul apel plus "
                "(n − 1) apeluri obișnuite: la puține cereri câștigă eager, la foarte multe, modul cel mai "
                "rapid pe apel, oricât de scumpă i-ar fi compilarea."
            )
        gresite = [(c, o, a) for c, o, a in zip(cazuri, obtinute, asteptate) if o != a]
        numite = [
            explicatie for _, greseala, explicatie in _GRESELI_2
            if all(greseala(c) == o for c, o in zip(cazuri, obtinute))
        ]
        caz, obtinut, asteptat = gresite[0]
        text = _explica_caz_2(caz, obtinut, asteptat)
        if len(numite) == 1:
            text += "\n" + numite[0]
        else:
            if len(gresite) > 1:
                text += f"\nGreșit în {cu_substantiv(len(gresite), 'caz', 'cazuri')} din {format_numar(len(cazuri))}."
            indiciu = _indiciu_cereri_2(cazuri, obtinute)
            if indiciu:
                text += "\n" + indiciu
        raise GresealaCursant(text)

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_VERIFICARE_2_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: compilarea regională a blocului repetat
# ---------------------------------------------------------------------------------------------

#: Cât are voie să dureze funcția cursantului (ea doar pregătește compilarea, care e leneșă).
LIMITA_APEL_3_S = 20.0
#: Cât are voie să dureze primul apel al modelului (compilarea blocului pe procesor) și un apel
#: obișnuit.
LIMITA_COMPILARE_3_S = 150.0
LIMITA_RULARE_3_S = 30.0
LIMITA_VERIFICARE_3_S = 300.0
_TOLERANTA_3 = dict(rtol=1e-4, atol=1e-5)


def _regiuni(functie, *argumente):
    """Rulează `functie` sub profiler; întoarce (rezultatul, regiunile compilate de Dynamo rulate,
    grafurile Inductor rulate)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        rezultat = functie(*argumente)
    nume = [e.name for e in profiler.events()]
    regiuni = sum(1 for n in nume if n.startswith("Torch-Compiled Region"))
    inductor = sum(1 for n in nume if "CompiledFxGraph" in n)
    return rezultat, regiuni, inductor


def _compilat_static(modul: nn.Module) -> bool:
    """Adevărat dacă modulul are, el însuși, un apel compilat: `modul.compile()` sau `forward`
    înlocuit cu o funcție compilată."""
    if getattr(modul, "_compiled_call_impl", None) is not None:
        return True
    inlocuit = modul.__dict__.get("forward")
    return inlocuit is not None and hasattr(inlocuit, "_torchdynamo_orig_callable")


def _ruleaza_modelul(model, x, ce, limita, cu_regiuni=False):
    tampon = io.StringIO()
    try:
        with _fara_jurnale_torch(tampon), torch.no_grad(), limita_timp(limita, ce):
            if cu_regiuni:
                return _regiuni(model, x)
            return model(x), None, None
    except GresealaCursant:
        raise
    except Exception as eroare:
        raise GresealaCursant(explica_exceptie(eroare, cine=_cu_majuscula(ce))) from None


#: Clasele modelului, așa cum le-a definit cursul: exercițiul 3 cere compilarea fiecărui strat
#: (a instanței), nu înlocuirea lui `BlocTransformer.forward` în clasă, care ar compila toate
#: straturile din proces, din orice model.
_CLASE_PAZITE = {clasa: dict(vars(clasa)) for clasa in (BlocTransformer, ReteaTransformer)}


def _repune_clasele() -> list[str]:
    """Pune la loc atributele claselor păzite, dacă au fost schimbate; întoarce ce era schimbat
    („BlocTransformer.forward”)."""
    schimbate = []
    for clasa, original in _CLASE_PAZITE.items():
        acum = dict(vars(clasa))
        for nume in set(acum) | set(original):
            if nume in ("__dict__", "__weakref__"):
                continue
            if acum.get(nume, _LIPSA) is not original.get(nume, _LIPSA):
                schimbate.append(f"{clasa.__name__}.{nume}")
                if nume in original:
                    setattr(clasa, nume, original[nume])
                else:
                    delattr(clasa, nume)
    return sorted(schimbate)


_LIPSA = object()


def _mesaj_clasa_schimbata(schimbate: list[str], cine: str) -> str:
    return (
        f"{cine} a schimbat clasa modelului, nu straturile lui: {', '.join(f'`{n}`' for n in schimbate)}. Așa "
        "compilezi (sau schimbi) toate straturile din proces, din orice model, nu pe cele ale modelului primit; "
        "am pus clasa la loc. Compilează fiecare strat din `model.straturi`, pe loc: `strat.compile()` (sau "
        "`strat.forward = torch.compile(strat.forward)`, pe instanță)."
    )


def _unelte_interzise_3() -> dict:
    """Unealta cursului care face chiar exercițiul 3 (compilarea regională din capitol)."""
    from ..capitole import cap06_modelul_intreg as antrenare

    return {antrenare._compileaza_straturile: "curs_compilare.capitole.cap06_modelul_intreg._compileaza_straturile"}


def _verifica_un_model(compileaza_regional, model, intrari, eager, prima_data: bool) -> tuple[int, int]:
    """Verifică un model; întoarce (grafuri noi, straturi)."""
    straturi = len(model.straturi)
    chei = list(model.state_dict().keys())
    parametri = [(nume, id(p)) for nume, p in model.named_parameters()]
    try:
        with _fara_jurnale_torch():
            rezultat = apeleaza(compileaza_regional, model, limita_s=LIMITA_APEL_3_S, ce="funcția ta `compileaza_regional`",
                                interzise=_unelte_interzise_3())
    finally:
        schimbate = _repune_clasele()
    if schimbate:
        raise GresealaCursant(_mesaj_clasa_schimbata(schimbate, "Funcția ta"))
    if rezultat is None:
        raise GresealaCursant(
            "`compileaza_regional` a întors None: compilează straturile pe loc și întoarce modelul "
            "(`return model`)."
        )
    if isinstance(rezultat, torch._dynamo.eval_frame.OptimizedModule):
        raise GresealaCursant(
            "Ai întors `torch.compile(model)`: modelul întreg, învelit într-un OptimizedModule (cheile din "
            "state_dict primesc prefixul `_orig_mod.`). Exercițiul cere compilarea regională: fiecare strat "
            "din `model.straturi`, pe loc (`strat.compile()`), și întoarcerea aceluiași model."
        )
    if rezultat is not model:
        raise GresealaCursant(
            f"`compileaza_regional` a întors alt obiect ({type(rezultat).__name__}), nu modelul primit. "
            "Compilează straturile pe loc și întoarce chiar modelul primit."
        )
    chei_noi = list(model.state_dict().keys())
    if chei_noi != chei:
        cu_prefix = [c for c in chei_noi if "_orig_mod." in c]
        if cu_prefix:
            raise GresealaCursant(
                f"Cheile din state_dict s-au schimbat (de exemplu {cu_prefix[0]!r}): ai înlocuit straturile cu "
                "`torch.compile(strat)`, care le învelește într-un OptimizedModule cu prefixul `_orig_mod.`. "
                "Un checkpoint salvat așa nu se mai încarcă într-un model necompilat. Folosește "
                "`strat.compile()`, care compilează pe loc și lasă cheile neschimbate."
            )
        raise GresealaCursant(
            "Cheile din state_dict s-au schimbat: ai modificat structura modelului. Compilează straturile "
            "pe loc (`strat.compile()`), fără să le înlocuiești."
        )
    if [(nume, id(p)) for nume, p in model.named_parameters()] != parametri:
        raise GresealaCursant(
            "Parametrii modelului nu mai sunt aceiași tensori: ai înlocuit straturile (cu copii sau cu straturi "
            "noi). Un "
            "optimizator creat pe `model.parameters()` n-ar mai antrena modelul. Compilează straturile "
            "existente, pe loc (`strat.compile()`)."
        )
    alte_clase = sorted({type(s).__name__ for s in model.straturi if type(s) is not BlocTransformer})
    if alte_clase:
        raise GresealaCursant(
            f"Straturile modelului nu mai sunt de clasa `BlocTransformer`, ci {', '.join(alte_clase)}: ai schimbat "
            "clasa straturilor. Lasă straturile cum sunt și compilează-le pe loc, fiecare: `strat.compile()`."
        )
    if _compilat_static(model):
        raise GresealaCursant(
            "Ai compilat modelul întreg (`model.compile()` sau `model.forward` compilat): Dynamo urmărește "
            "atunci toate straturile într-un singur graf mare, iar compilarea durează cu atât mai mult cu "
            "cât sunt mai multe straturi. Compilează doar fiecare strat din `model.straturi`."
        )
    x1, x2 = intrari
    grafuri_inainte = _grafuri()
    inductor_inainte = sum(_contoare()["inductor"].values())
    y1, _, _ = _ruleaza_modelul(model, x1, f"primul apel al modelului cu {cu_substantiv(straturi, 'strat', 'straturi')} "
                                "(compilarea blocului)" if prima_data else "primul apel al modelului",
                                LIMITA_COMPILARE_3_S if prima_data else LIMITA_RULARE_3_S, cu_regiuni=not prima_data)
    compara_tensori(y1, eager[0], f"ieșirea modelului cu {cu_substantiv(straturi, 'strat', 'straturi')}", **_TOLERANTA_3)
    grafuri_primul = _grafuri() - grafuri_inainte
    y2, regiuni, inductor = _ruleaza_modelul(model, x2, "al doilea apel al modelului", LIMITA_RULARE_3_S, cu_regiuni=True)
    compara_tensori(y2, eager[1], f"ieșirea modelului cu {cu_substantiv(straturi, 'strat', 'straturi')}, al doilea apel", **_TOLERANTA_3)
    grafuri_al_doilea = _grafuri() - grafuri_inainte - grafuri_primul
    compilate = [i for i, s in enumerate(model.straturi) if _compilat_static(s)]
    if regiuni == 0:
        raise GresealaCursant(
            "Niciun strat n-a rulat printr-o regiune compilată: la al doilea apel, modelul a rulat în "
            "întregime eager. Compilează fiecare strat (`for strat in model.straturi: strat.compile()`) și "
            "nu-l exclude cu `torch.compiler.disable`."
        )
    if regiuni < straturi:
        if compilate and len(compilate) < straturi:
            ce = f"doar {'stratul' if len(compilate) == 1 else 'straturile'} {', '.join(map(str, compilate))}"
        else:
            ce = f"doar {cu_substantiv(regiuni, 'regiune', 'regiuni')}"
        raise GresealaCursant(
            f"Modelul are {cu_substantiv(straturi, 'strat', 'straturi')}, dar la un apel au rulat {ce} "
            f"compilat{'e' if regiuni > 1 else ''}: celelalte straturi rulează eager. Compilează fiecare "
            "strat din `model.straturi`."
        )
    if regiuni > straturi:
        raise GresealaCursant(
            f"La un apel au rulat {cu_substantiv(regiuni, 'regiune compilată', 'regiuni compilate')} pentru "
            f"{cu_substantiv(straturi, 'strat', 'straturi')}: graful se întrerupe în bloc sau ai compilat și "
            "alte module. Compilează doar fiecare strat, cu `strat.compile()`."
        )
    # Inductor: graful lui rulat (profilerul) sau măcar compilat ori luat din cache (contoarele), la
    # modelul la care se face compilarea (al doilea refolosește graful, fără să-l mai compileze)
    if prima_data and inductor == 0 and sum(_contoare()["inductor"].values()) == inductor_inainte:
        raise GresealaCursant(
            "Straturile trec prin Dynamo, dar graful lor nu e compilat de Inductor: ai ales alt backend "
            "(„eager”, „aot_eager”), care doar urmărește graful, fără să genereze kernel-uri, deci nu "
            "câștigi nimic. Lasă backend-ul implicit: `strat.compile()`."
        )
    if grafuri_al_doilea:
        raise GresealaCursant(
            f"Al doilea apel, cu intrări de aceeași formă, a recompilat ({cu_substantiv(grafuri_al_doilea, 'graf nou', 'grafuri noi')}): "
            "garda unei compilări a căzut. Compilează straturile o singură dată, fără opțiuni care se schimbă."
        )
    return grafuri_primul, straturi


def exercitiul_3(compileaza_regional) -> Rezultat:
    """Verifică `compileaza_regional(model) -> model` pe două modele `ReteaTransformer` mici, cu
    aceleași mărimi (alese la întâmplare): unul cu 2 straturi, apoi unul cu 3–4, pe procesor.

    Ce se verifică: funcția întoarce chiar modelul primit (nu `torch.compile(model)`); cheile din
    `state_dict` și parametrii (aceiași tensori) rămân neschimbați; modelul întreg nu e compilat;
    ieșirile sunt egale cu cele eager; la un apel, fiecare strat rulează printr-o regiune compilată
    de Dynamo, cu graful compilat de Inductor (backend-ul implicit; `dynamic=True` e acceptat);
    blocul are un singur graf, refolosit de toate straturile și de al doilea model; al doilea apel
    nu recompilează. Clasa `BlocTransformer` (și `ReteaTransformer`) trebuie să rămână neatinsă:
    o `forward` compilată pusă în clasă ar compila toate straturile din proces, nu pe cele ale
    modelului; verificarea o pune la loc și spune de ce. Straturile trebuie să rămână de clasa
    `BlocTransformer`, iar unealta cursului `antrenare._compileaza_straturile` nu se folosește.
    Verificarea golește întâi cache-ul lui Dynamo (`torch._dynamo.reset()`)."""

    def corp():
        from ..modele import ConfiguratieTransformer

        schimbate = _repune_clasele()
        if schimbate:
            raise GresealaCursant(_mesaj_clasa_schimbata(schimbate, "Codul tău, rulat înaintea verificării,"))
        rng = generator_aleator()
        capete = 2
        configuratie = ConfiguratieTransformer(
            vocabular=rng.randint(16, 64), dim_model=capete * rng.choice((4, 8)), nr_capete=capete,
            nr_straturi=2, lungime=rng.randint(4, 8), marime_lot=rng.randint(1, 3),
        )
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        torch._dynamo.reset()
        grafuri = 0
        rezumat = []
        for numar, straturi in enumerate((2, rng.randint(3, 4))):
            torch.manual_seed(rng.randrange(2**31))
            model = ReteaTransformer(ConfiguratieTransformer(**{**configuratie.__dict__, "nr_straturi": straturi}))
            intrari = [
                torch.randint(configuratie.vocabular, (configuratie.marime_lot, configuratie.lungime), generator=generator)
                for _ in range(2)
            ]
            with torch.no_grad():
                eager = [model(x) for x in intrari]
            noi, _ = _verifica_un_model(compileaza_regional, model, intrari, eager, prima_data=numar == 0)
            grafuri += noi
            rezumat.append(straturi)
        if grafuri > 1:
            raise GresealaCursant(
                f"Dynamo a capturat {cu_substantiv(grafuri, 'graf', 'grafuri')} pentru blocul repetat, în loc de unul "
                f"singur pentru toate cele {cu_substantiv(sum(rezumat), 'strat', 'straturi')}: fiecare strat s-a "
                "compilat separat. Compilarea regională are rost tocmai pentru că straturile au același cod "
                "și aceleași forme: `strat.compile()` pe fiecare, cu aceleași opțiuni, refolosește graful."
            )
        if grafuri == 0:
            raise GresealaCursant("Dynamo n-a capturat niciun graf: straturile n-au fost compilate.")
        return (
            f"Ieșirile sunt egale cu cele eager, cheile din state_dict au rămas aceleași, iar blocul s-a "
            f"compilat o singură dată: un graf, refolosit de toate cele {format_numar(rezumat[0])} straturi ale "
            f"primului model și de cele {format_numar(rezumat[1])} ale celui de-al doilea, fără recompilări. "
            "Timpul compilării nu mai crește cu numărul de straturi."
        )

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_3_S)
