"""Verificările exercițiilor din capitolul 00 — „Mediul de lucru și măsurarea corectă”.

Fiecare verificare își alege intrările la întâmplare, la fiecare rulare (`generator_aleator`),
apelează codul cursantului numai prin `apeleaza` și numește o greșeală anume doar când
răspunsurile cursantului, pe toate intrările, se potrivesc exact cu acea greșeală.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass

import torch

from .. import amortizare, masurare
from ..cifre import cu_substantiv, format_numar, format_timp
from .baza import GresealaCursant, Rezultat, apeleaza, cere_numar, generator_aleator, numar_precis, verificare

__all__ = ["exercitiul_1", "exercitiul_2", "exercitiul_3"]

#: Limitele de timp: pentru un apel al funcției cursantului și pentru toată verificarea.
LIMITA_APEL_1_S = 10.0
LIMITA_VERIFICARE_1_S = 40.0
LIMITA_APEL_2_S = 5.0
LIMITA_VERIFICARE_2_S = 20.0
LIMITA_APEL_3_S = 2.0
LIMITA_VERIFICARE_3_S = 15.0


def _de_ori(n: int) -> str:
    """„niciodată”, „o singură dată”, „de 7 ori”, „de 20 de ori”."""
    if n == 0:
        return "niciodată"
    return "o singură dată" if n == 1 else "de " + cu_substantiv(n, "dată", "ori")


def _mare(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: o buclă de cronometrare corectă
# ---------------------------------------------------------------------------------------------


#: Sub cât timp rămas nu mai doarme (așteaptă activ): ultima milisecundă o așteaptă mereu activ.
_PRAG_SOMN_S = 0.002


def _asteapta_pana_la(moment: float) -> float:
    """Așteaptă până la `moment` (după `time.perf_counter`): doarme cât se poate, apoi așteaptă
    activ ultima milisecundă, ca timpii simulați să fie exacți (un `sleep` singur
    întârzie cu zeci sau sute de microsecunde). Întoarce cu cât a întârziat față de `moment`:
    pe o mașină ocupată de alte programe, procesul poate pierde câteva milisecunde."""
    ramas = moment - time.perf_counter()
    if ramas > _PRAG_SOMN_S:
        time.sleep(ramas - _PRAG_SOMN_S / 2)
    acum = time.perf_counter()
    while acum < moment:
        acum = time.perf_counter()
    return acum - moment


@dataclass
class _GPU:
    """Duratele unui GPU simulat (știute doar de verificare) și ce a făcut cursantul cu el."""

    lucrare_s: float  # lucrul unui apel obișnuit
    prima_lucrare_s: float  # lucrul primului apel: memoria se alocă, cache-urile sunt reci
    compilare_s: float  # compilarea, pe procesor, la primul apel (blochează)
    lansare_s: float  # cât costă lansarea, pe procesor
    repetari: int
    lansari: int = 0
    sincronizari: int = 0
    intarziere_s: float = 0.0  # cea mai mare întârziere a mașinii văzută în așteptările simulate

    def functii(self):
        """`lanseaza` și `sincronizeaza` pentru cursant: funcții simple, fără atribute din care
        să se poată citi durata lucrului (ea trebuie măsurată)."""
        gpu = self
        liber_la = [time.perf_counter()]  # când termină „GPU-ul” tot ce are în coadă

        def lanseaza():
            """Lansează o lucrare pe GPU-ul simulat și se întoarce fără să aștepte terminarea ei."""
            prima = gpu.lansari == 0
            inceput = time.perf_counter()
            intarziere = _asteapta_pana_la(inceput + (gpu.compilare_s if prima else 0.0) + gpu.lansare_s)
            gpu.intarziere_s = max(gpu.intarziere_s, intarziere)
            acum = time.perf_counter()
            liber_la[0] = max(acum, liber_la[0]) + (gpu.prima_lucrare_s if prima else gpu.lucrare_s)
            gpu.lansari += 1

        def sincronizeaza():
            """Așteaptă până când GPU-ul simulat a terminat tot ce i s-a cerut."""
            gpu.sincronizari += 1
            gpu.intarziere_s = max(gpu.intarziere_s, _asteapta_pana_la(liber_la[0]))

        return lanseaza, sincronizeaza


def _gpu_uri(generator) -> list[_GPU]:
    """Două GPU-uri simulate, cu durate alese la întâmplare: lucrul celui de-al doilea e de 2,5–3,5
    ori mai lung, ca un timp scris fix în cod să nu se potrivească amândurora.

    Lucrul primului apel e cât 2,8–3,4 rânduri de repetări pe primul GPU și cât 1,2–1,6 pe al
    doilea: o buclă care nu-l așteaptă măsoară de 3,8–4,4 ori, respectiv de 2,2–2,6 ori prea
    mult, deci greșeala nu se confundă cu un factor constant (o împărțire greșită)."""
    lucrare = generator.uniform(0.002, 0.003)
    lansare = generator.uniform(2e-5, 6e-5)
    gpu_uri = []
    for factor, coada in ((1.0, generator.uniform(2.8, 3.4)), (generator.uniform(2.5, 3.5), generator.uniform(1.2, 1.6))):
        repetari = generator.randint(8, 12)
        w = lucrare * factor
        gpu_uri.append(_GPU(
            lucrare_s=w,
            prima_lucrare_s=repetari * w * coada,
            compilare_s=generator.uniform(0.10, 0.14),
            lansare_s=lansare,
            repetari=repetari,
        ))
    generator.shuffle(gpu_uri)
    return gpu_uri


#: Ce ar întoarce o buclă cu o greșeală anume: (mesaj, timpul prezis pe un GPU simulat).
_GRESELI_CRONOMETRU = [
    (
        lambda g: (
            "pornești ceasul fără să sincronizezi după încălzire: în coadă e încă lucrul primului apel "
            f"(mai lung decât celelalte, aici {format_timp(g.prima_lucrare_s)}), iar el intră în timpul "
            "măsurat. Apelează `sincronizeaza()` chiar înainte de a porni ceasul."
        ),
        lambda g: g.lucrare_s + g.prima_lucrare_s / g.repetari,
    ),
    (
        lambda g: (
            f"ai cronometrat și primul apel, care compilează (aici, {format_timp(g.compilare_s)}) și lucrează "
            "mai mult decât celelalte. Fă încălzirea (și sincronizează după ea) înainte să pornești "
            "cronometrul, sau ia mediana timpilor individuali."
        ),
        lambda g: g.lucrare_s + (g.compilare_s + g.prima_lucrare_s - g.lucrare_s) / g.repetari,
    ),
    (
        lambda g: (
            f"ai întors timpul total al buclei, cam de {format_numar(g.repetari)} ori prea mult. Împarte la "
            "numărul de repetări (sau ia mediana timpilor individuali)."
        ),
        lambda g: g.repetari * g.lucrare_s,
    ),
    (
        lambda g: "ai întors milisecunde, de 1 000 de ori prea mult. Funcția trebuie să întoarcă secunde.",
        lambda g: 1e3 * g.lucrare_s,
    ),
    (
        lambda g: "ai întors microsecunde, de un milion de ori prea mult. Funcția trebuie să întoarcă secunde.",
        lambda g: 1e6 * g.lucrare_s,
    ),
]
#: Cât se poate abate un timp măsurat de cel prezis (raport) ca să-l socotim potrivit.
_TOLERANTA_CRONOMETRU = 1.3
#: De câte ori, cel mult, se repetă măsurătoarea când timpul iese în afara toleranței, dar ar
#: putea fi doar zgomotul unei mașini ocupate (alte programe o pot întârzia cu milisecunde).
_INCERCARI_CRONOMETRU = 6


def exercitiul_1(masoara_corect) -> Rezultat:
    """Verifică `masoara_corect(lanseaza, sincronizeaza, repetari)`, care trebuie să întoarcă
    timpul unui apel, în secunde, pe un GPU simulat: asincron, cu compilare la primul apel și cu
    lucrul primului apel mai lung decât al celorlalte. Încearcă două GPU-uri simulate, cu durate
    alese la întâmplare, și numără lansările și sincronizările."""

    def o_incercare(generator) -> tuple[list[float], list[_GPU]]:
        gpu_uri = _gpu_uri(generator)
        valori = []
        for gpu in gpu_uri:
            lanseaza, sincronizeaza = gpu.functii()
            valoare = cere_numar(
                apeleaza(masoara_corect, lanseaza, sincronizeaza, gpu.repetari, limita_s=LIMITA_APEL_1_S,
                         ce="funcția ta de cronometrare"),
                "timpul unui apel",
            )
            if gpu.lansari < gpu.repetari:
                raise GresealaCursant(
                    f"Ai apelat `lanseaza()` {_de_ori(gpu.lansari)}, dar trebuia de cel puțin "
                    f"{cu_substantiv(gpu.repetari, 'dată', 'ori')} (argumentul `repetari`), plus încălzirea."
                )
            if gpu.sincronizari == 0:
                raise GresealaCursant(
                    "N-ai apelat niciodată `sincronizeaza()`: ai măsurat doar cât durează lansarea, nu lucrul "
                    "GPU-ului. Pe un GPU, apelul se întoarce înainte ca lucrul să se termine."
                )
            if valoare <= 0:
                raise GresealaCursant(
                    f"Ai întors {numar_precis(valoare, 's')}, dar un timp măsurat e pozitiv: scade momentul "
                    "pornirii din cel al opririi."
                )
            valori.append(valoare)
        return valori, gpu_uri

    def corp():
        generator = generator_aleator()
        incercari, neexplicate = [], 0
        for _ in range(_INCERCARI_CRONOMETRU):
            valori, gpu_uri = o_incercare(generator)
            rapoarte = [v / g.lucrare_s for v, g in zip(valori, gpu_uri)]
            if all(0.8 <= r <= _TOLERANTA_CRONOMETRU for r in rapoarte):
                return (
                    "Bucla ta așteaptă GPU-ul, lasă primul apel (compilarea) și lucrul rămas de la încălzire "
                    "în afara cronometrului și măsoară timpul unui apel."
                )
            incercari.append((max(rapoarte), valori, gpu_uri))
            if not all(0.5 <= r <= 3 for r in rapoarte):
                break  # prea departe ca să fie zgomotul mașinii
            # Alte programe pot întârzia procesul cu câteva milisecunde (și doar în sus): dacă
            # întârzierile văzute explică abaterea (un apel trece prin două așteptări, lansarea și
            # sincronizarea), încercarea nu spune nimic; altfel, e o greșeală.
            if not all(
                0.8 * g.lucrare_s <= v <= _TOLERANTA_CRONOMETRU * g.lucrare_s + 2 * g.intarziere_s
                for v, g in zip(valori, gpu_uri)
            ):
                neexplicate += 1
                if neexplicate == 2:
                    break
        else:
            if neexplicate == 0:
                intarziere = max(g.intarziere_s for _, _, gpu_uri in incercari for g in gpu_uri)
                raise GresealaCursant(
                    f"N-am putut măsura curat: în toate cele {len(incercari)} încercări, alte programe au "
                    f"întârziat procesul (cu până la {format_timp(intarziere)}), iar timpii tăi au ieșit "
                    "puțin peste cei așteptați. Închide programele care încarcă procesorul și rulează din "
                    "nou verificarea."
                )
        # Diagnosticul folosește încercarea cu timpii cei mai scurți (cea mai puțin întârziată).
        _, valori, gpu_uri = min(incercari, key=lambda p: p[0])

        if all(v < 0.5 * g.lucrare_s for v, g in zip(valori, gpu_uri)):
            v_lung, g_lung = max(zip(valori, gpu_uri), key=lambda p: p[1].lucrare_s)
            # Cât costă lansarea (zeci de microsecunde), nu o fracțiune a lucrului (ca la o împărțire
            # de două ori la numărul de repetări, care dă cel puțin 8% din lucru).
            if v_lung < 0.05 * g_lung.lucrare_s:
                raise GresealaCursant(
                    f"Ai obținut {format_timp(v_lung)}, cam cât costă lansarea, deși lucrul unui apel durează "
                    f"aproximativ {format_timp(g_lung.lucrare_s)}: oprești cronometrul înainte ca GPU-ul să "
                    "termine. Sincronizează înainte de a citi ceasul."
                )
            raise GresealaCursant(
                f"Ai obținut {format_timp(valori[0])}, mai puțin decât durează lucrul unui singur apel "
                f"(aproximativ {format_timp(gpu_uri[0].lucrare_s)}). Verifică sincronizarea înainte de oprirea "
                "ceasului și împărțirea la numărul de repetări."
            )

        potrivite = [
            mesaj
            for mesaj, prezis in _GRESELI_CRONOMETRU
            if all(abs(math.log(v / prezis(g))) <= math.log(_TOLERANTA_CRONOMETRU) for v, g in zip(valori, gpu_uri))
        ]
        if len(potrivite) == 1:
            raise GresealaCursant(
                f"Ai obținut {format_timp(valori[0])} în loc de aproximativ {format_timp(gpu_uri[0].lucrare_s)}: "
                + potrivite[0](gpu_uri[0])
            )
        raise GresealaCursant(
            f"Pe primul GPU simulat ai obținut {format_timp(valori[0])}, dar un apel durează aproximativ "
            f"{format_timp(gpu_uri[0].lucrare_s)}; pe al doilea, {format_timp(valori[1])} față de "
            f"{format_timp(gpu_uri[1].lucrare_s)}. Verifică cele trei reparații: încălzirea înainte de "
            "cronometru, sincronizarea chiar înainte de pornirea și de oprirea ceasului, împărțirea la "
            "numărul de repetări (rezultatul, în secunde)."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_VERIFICARE_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: GB/s dintr-un număr de octeți și un timp
# ---------------------------------------------------------------------------------------------

#: Greșelile de calcul recunoscute: (explicația, ce ar fi întors, din numel, element_size, timp).
_GRESELI_GBPS = [
    ("ai numărat doar citirea (sau doar scrierea); operația citește x o dată și scrie rezultatul o dată",
     lambda n, e, t: n * e / t / 1e9),
    ("ai numărat elemente, nu octeți: înmulțește cu `x.element_size()`",
     lambda n, e, t: 2 * n / t / 1e9),
    ("ai numărat elemente, nu octeți, și doar o trecere prin memorie",
     lambda n, e, t: n / t / 1e9),
    ("ai numărat biți, nu octeți: un octet are 8 biți, iar `x.element_size()` dă deja octeți",
     lambda n, e, t: 16 * n * e / t / 1e9),
    ("ai împărțit la 2³⁰ (GiB); în cifrele de lățime de bandă 1 GB = 10⁹ octeți",
     lambda n, e, t: 2 * n * e / t / 2**30),
    ("ai lăsat rezultatul în octeți pe secundă; împarte la 10⁹ ca să obții GB/s",
     lambda n, e, t: 2 * n * e / t),
    ("rezultatul e de 1 000 de ori prea mic: ai împărțit la 10¹² (TB/s) sau ai pus timpul în milisecunde",
     lambda n, e, t: 2 * n * e / t / 1e12),
    ("rezultatul e de 1 000 de ori prea mare: timpul e deja în secunde, nu-l mai împărți la 1 000",
     lambda n, e, t: 2 * n * e / t / 1e6),
]

#: Rotunjirea la întreg (`int`, `round`, `//`, `math.ceil`): fiecare valoare e un întreg la mai
#: puțin de 1 de cea corectă.
_ROTUNJIRE = "ai rotunjit rezultatul la un număr întreg: întoarce-l cu zecimale, așa cum iese din împărțire"

#: Tipurile tensorilor încercați (float32 e mereu printre ei, ca elementele să difere de octeți).
_TIPURI_2 = [torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int16, torch.int32,
             torch.int64, torch.uint8, torch.bool, torch.complex64]


def _cazuri_gbps(generator) -> list[tuple[torch.Tensor, float]]:
    tipuri = [torch.float32, *generator.sample(_TIPURI_2, 5)]
    generator.shuffle(tipuri)
    cazuri = []
    for tip in tipuri:
        forma = tuple(generator.randint(1, 40) for _ in range(generator.randint(0, 4)))
        timp_s = 10 ** generator.uniform(-6.5, -2)
        cazuri.append((torch.zeros(forma, dtype=tip), timp_s))
    return cazuri


def _tip_imprecis(valoare) -> str | None:
    """Numele tipului, dacă `valoare` e un număr cu precizie redusă (float16, bfloat16, float8):
    un tensor sau un scalar NumPy."""
    dtype = getattr(valoare, "dtype", None)
    if isinstance(valoare, torch.Tensor):
        if dtype.is_floating_point and torch.finfo(dtype).bits <= 16:
            return str(dtype).replace("torch.", "")
        return None
    if dtype is not None and type(valoare).__module__ == "numpy":
        nume = str(dtype)
        if nume in ("float16", "bfloat16") or nume.startswith("float8"):
            return nume
    return None


def exercitiul_2(gbps_pentru_inmultire) -> Rezultat:
    """Verifică `gbps_pentru_inmultire(x, timp_s)`: lățimea de bandă, în GB/s, a operației
    `y = x * 2`, care citește x o dată și scrie y o dată, dacă a durat `timp_s` secunde.
    Încearcă șase tensori de forme, tipuri și timpi aleși la întâmplare."""

    def corp():
        cazuri = _cazuri_gbps(generator_aleator())
        valori = []
        for x, timp_s in cazuri:
            rezultat = apeleaza(gbps_pentru_inmultire, x, timp_s, limita_s=LIMITA_APEL_2_S)
            tip = _tip_imprecis(rezultat)
            if tip is not None:
                raise GresealaCursant(
                    f"Ai întors un număr de tipul {tip}, care păstrează doar două-trei cifre semnificative"
                    + (" și nu trece de 65 504" if tip == "float16" else "")
                    + ": lățimea de bandă ar ieși rotunjită grosier. Calculează cu numere Python obișnuite "
                    "(de exemplu, cu `x.numel()` și `x.element_size()`, care sunt întregi) și întoarce un float."
                )
            valori.append(cere_numar(rezultat, "lățimea de bandă"))

        def potrivit(formula) -> bool:
            return all(
                math.isclose(v, formula(x.numel(), x.element_size(), t), rel_tol=1e-6)
                for v, (x, t) in zip(valori, cazuri)
            )

        corect = lambda n, e, t: 2 * n * e / t / 1e9  # noqa: E731
        if potrivit(corect):
            return "Ai numărat octeții citiți și scriși și i-ai împărțit corect la timp."
        for explicatie, formula in _GRESELI_GBPS:
            if potrivit(formula):
                raise GresealaCursant(_mare(explicatie) + ".")
        if all(
            v == int(v) and abs(v - corect(x.numel(), x.element_size(), t)) < 1
            for v, (x, t) in zip(valori, cazuri)
        ):
            raise GresealaCursant(_mare(_ROTUNJIRE) + ".")
        if len(set(valori)) == 1:
            raise GresealaCursant(
                f"Ai întors același număr ({numar_precis(valori[0])}) pentru toți cei {len(cazuri)} tensori, deși "
                "au forme, tipuri și timpi diferiți: calculează rezultatul din `x` și `timp_s`."
            )
        (x, timp_s), valoare = next(
            (caz, v) for caz, v in zip(cazuri, valori)
            if not math.isclose(v, corect(caz[0].numel(), caz[0].element_size(), caz[1]), rel_tol=1e-6)
        )
        asteptat = corect(x.numel(), x.element_size(), timp_s)
        raise GresealaCursant(
            f"Pentru x de forma {tuple(x.shape)} și tipul {str(x.dtype).replace('torch.', '')}, în "
            f"{numar_precis(timp_s, 's')}, ai obținut {numar_precis(valoare, 'GB/s')}, dar trebuia "
            f"{numar_precis(asteptat, 'GB/s')}. Lățimea de bandă: octeții citiți și scriși, "
            "2 · x.numel() · x.element_size(), împărțiți la timp și la 10⁹."
        )

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_VERIFICARE_2_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: după câte apeluri se amortizează compilarea
# ---------------------------------------------------------------------------------------------


@dataclass
class _Caz3:
    prima: float
    eager: float
    compilat: float
    fel: str  # "obisnuit", "egalitate", "ieftin" (primul apel ≤ eager), "niciodata", "capcana"

    @property
    def asteptat(self) -> int | None:
        return amortizare.apel_de_amortizare(self.eager, self.eager, self.prima, self.compilat)

    def descriere(self) -> str:
        return (
            f"timp_prima = {numar_precis(self.prima, 's')}, timp_eager = {numar_precis(self.eager, 's')} și "
            f"timp_compilat = {numar_precis(self.compilat, 's')}"
        )

    def totaluri(self, n: int) -> str:
        return (
            f"după {cu_substantiv(n, 'apel', 'apeluri')}, varianta compilată a costat "
            f"{numar_precis(amortizare.cost_total(self.prima, self.compilat, n), 's')}, iar eager "
            f"{numar_precis(amortizare.cost_total(self.eager, self.eager, n), 's')}"
        )


def _cazuri_amortizare(generator) -> list[_Caz3]:
    """Cazuri obișnuite (compilatul mai rapid pe apel, primul apel mai scump), alese la
    întâmplare, cu pragul între 2 și câteva mii de apeluri; două egalități exacte (numere
    diadice, fără rotunjiri); și cazurile limită."""
    cazuri = []
    while len(cazuri) < 14:
        eager = 10 ** generator.uniform(-4, -1)
        compilat = eager * generator.uniform(0.2, 0.9)
        raport = 10 ** generator.uniform(0.2, 3.5)  # (prima − compilat) / (eager − compilat)
        if abs(raport - round(raport)) < 1e-6:
            continue  # departe de granițe: acolo decid rotunjirile în virgulă mobilă
        cazuri.append(_Caz3(compilat + (eager - compilat) * raport, eager, compilat, "obisnuit"))
    for _ in range(2):  # totalurile sunt exact egale la apelul m
        a = generator.randint(8, 200)
        b = generator.randint(1, a - 1)
        m = generator.randint(3, 400)
        cazuri.append(_Caz3((b + (a - b) * m) / 1024, a / 1024, b / 1024, "egalitate"))
    eager = 10 ** generator.uniform(-3, -1)
    cazuri += [
        _Caz3(eager * generator.uniform(0.5, 1.0), eager, eager * generator.uniform(0.3, 0.9), "ieftin"),
        _Caz3(eager, eager, eager * generator.uniform(0.3, 0.9), "ieftin"),
        _Caz3(eager * generator.uniform(0.5, 0.99), eager, eager, "ieftin"),
        _Caz3(eager * generator.uniform(2, 100), eager, eager, "niciodata"),
        _Caz3(eager * generator.uniform(2, 100), eager, eager * generator.uniform(1.1, 2), "niciodata"),
        # primul apel mai ieftin, dar compilatul e mai lent pe apel: avansul se termină
        _Caz3(eager * generator.uniform(0.3, 0.7), eager, eager * generator.uniform(1.05, 1.5), "capcana"),
    ]
    return cazuri


#: Greșelile recunoscute pe cazurile obișnuite: (explicația, ce ar fi întors).
_GRESELI_AMORTIZARE = [
    ("ai uitat că primul apel compilat rulează deja funcția o dată: după el mai urmează n − 1 apeluri "
     "rapide, nu n (totalul compilat e t_prima + (n − 1) · t_compilat)",
     lambda c: max(1, math.ceil(c.prima / (c.eager - c.compilat)))),
    ("rotunjești în jos; rotunjește în sus (`math.ceil`): un apel început se plătește întreg",
     lambda c: math.floor((c.prima - c.compilat) / (c.eager - c.compilat))),
    ("rotunjești la cel mai apropiat întreg (`round`); rotunjește în sus (`math.ceil`): un apel început "
     "se plătește întreg",
     lambda c: round((c.prima - c.compilat) / (c.eager - c.compilat))),
    ("la egalitatea exactă a totalurilor ai mers un apel mai departe: „nu depășește” înseamnă ≤, nu <",
     lambda c: math.floor((c.prima - c.compilat) / (c.eager - c.compilat)) + 1),
    ("numeri doar apelurile de după primul; n numără toate apelurile, cu primul cu tot",
     lambda c: math.ceil((c.prima - c.eager) / (c.eager - c.compilat))),
]

#: Funcțiile cursului care calculează deja răspunsul (exercițiul îți cere să-l calculezi tu).
_FUNCTII_CURS = {
    amortizare.apel_de_amortizare: "curs_compilare.amortizare.apel_de_amortizare",
    masurare.prag_rentabilitate: "prag_rentabilitate",
}


def _apeleaza_fara_scurtaturi(functie, caz: _Caz3):
    """Apelează funcția cursantului; o respinge dacă folosește o funcție a cursului care dă
    direct răspunsul."""
    return apeleaza(functie, caz.prima, caz.eager, caz.compilat, limita_s=LIMITA_APEL_3_S, interzise=_FUNCTII_CURS)


def _text_valoare(valoare) -> str:
    """Un răspuns al cursantului, scris pentru mesaj: „None”, „∞”, „12,5”, „un str”."""
    if valoare is None:
        return "None"
    if isinstance(valoare, numbers.Real) and not isinstance(valoare, bool):
        return format_numar(valoare) if math.isinf(valoare) else numar_precis(valoare)
    return f"un obiect de tipul {type(valoare).__name__}"


def _e_niciodata(valoare) -> bool:
    return valoare is None or (isinstance(valoare, float) and math.isinf(valoare) and valoare > 0)


def exercitiul_3(dupa_cate_apeluri) -> Rezultat:
    """Verifică `dupa_cate_apeluri(timp_prima, timp_eager, timp_compilat)` după modelul din
    `curs_compilare.amortizare`: cel mai mic n ≥ 1 de la care totalul compilat (primul apel +
    (n − 1) apeluri rapide) nu mai depășește totalul eager (n apeluri), de acolo încolo; None
    dacă nu există. Încearcă 22 de cazuri alese la întâmplare, cu cazurile limită."""

    def corp():
        generator = generator_aleator()
        cazuri = _cazuri_amortizare(generator)
        obisnuite = [c for c in cazuri if c.fel in ("obisnuit", "egalitate")]
        limita = [c for c in cazuri if c not in obisnuite]
        generator.shuffle(obisnuite)
        generator.shuffle(limita)

        # Întâi cazurile obișnuite (toate), ca o greșeală de formulă să fie recunoscută pe toate.
        valori = []
        for caz in obisnuite:
            obtinut = _apeleaza_fara_scurtaturi(dupa_cate_apeluri, caz)
            if _e_niciodata(obtinut):
                raise GresealaCursant(
                    f"Pentru {caz.descriere()}, ai întors {_text_valoare(obtinut)}, dar compilarea se amortizează, la apelul "
                    f"{format_numar(caz.asteptat)}: {caz.totaluri(caz.asteptat)}."
                )
            valoare = cere_numar(obtinut, "numărul de apeluri")
            if valoare != int(valoare):
                raise GresealaCursant(
                    f"Pentru {caz.descriere()}, ai întors {numar_precis(valoare)}: numărul de apeluri trebuie să "
                    "fie întreg (un apel început se plătește întreg)."
                )
            valori.append(int(valoare))

        gresite = [(c, v) for c, v in zip(obisnuite, valori) if v != c.asteptat]
        if gresite:
            for explicatie, formula in _GRESELI_AMORTIZARE:
                if all(formula(c) == v for c, v in zip(obisnuite, valori)):
                    caz, valoare = gresite[0]
                    raise GresealaCursant(
                        f"Pentru {caz.descriere()}, ai întors {format_numar(valoare)}, dar trebuia "
                        f"{format_numar(caz.asteptat)}: {explicatie}."
                    )
            caz, valoare = gresite[0]
            if valoare < 1:
                fapt = "numărul de apeluri începe de la 1"
            elif valoare < caz.asteptat:
                fapt = caz.totaluri(valoare) + ", deci compilarea nu s-a plătit încă"
            else:
                fapt = f"compilarea se plătise deja: {caz.totaluri(caz.asteptat)}"
            raise GresealaCursant(
                f"Pentru {caz.descriere()}, ai întors {format_numar(valoare)}, dar trebuia "
                f"{format_numar(caz.asteptat)}: {fapt}. Modelul cursului: {amortizare.FORMULA}."
            )

        # Apoi cazurile limită, fiecare cu explicația lui.
        for caz in limita:
            try:
                obtinut = _apeleaza_fara_scurtaturi(dupa_cate_apeluri, caz)
            except GresealaCursant as greseala:
                if caz.asteptat is None and "n-a terminat" in str(greseala):
                    raise GresealaCursant(
                        f"Pentru {caz.descriere()}, funcția ta n-a terminat în {format_timp(LIMITA_APEL_3_S)}. "
                        "Aici varianta compilată nu se amortizează niciodată, deci o buclă care caută n nu se "
                        "oprește: tratează separat cazul în care compilatul nu e mai rapid pe apel."
                    ) from None
                raise
            asteptat = caz.asteptat
            if asteptat is None:
                if _e_niciodata(obtinut):
                    continue
                if caz.fel == "capcana":
                    depasit = next(n for n in range(1, 10**6) if amortizare.cost_total(caz.prima, caz.compilat, n)
                                   > amortizare.cost_total(caz.eager, caz.eager, n))
                    raise GresealaCursant(
                        f"Pentru {caz.descriere()}, ai întors {_text_valoare(obtinut)}, dar trebuia None. Primul apel compilat e "
                        f"mai ieftin decât unul eager, însă fiecare apel de după el e mai lent: {caz.totaluri(depasit)}; "
                        "de acolo încolo, diferența crește. Compilarea s-a amortizat doar dacă totalul compilat "
                        "nu-l mai depășește pe cel eager de la un apel încolo."
                    )
                raise GresealaCursant(
                    f"Pentru {caz.descriere()}, varianta compilată nu e mai rapidă pe apel și primul ei apel e mai "
                    f"scump, deci nu se amortizează niciodată: trebuia să întorci None, nu {_text_valoare(obtinut)}."
                )
            if _e_niciodata(obtinut):
                raise GresealaCursant(
                    f"Pentru {caz.descriere()}, ai întors {_text_valoare(obtinut)}, dar primul apel compilat nu e mai scump "
                    "decât unul eager, iar varianta compilată nu e mai lentă pe apel: compilarea s-a amortizat "
                    "de la primul apel, deci trebuia 1."
                )
            valoare = cere_numar(obtinut, "numărul de apeluri")
            if valoare != asteptat:
                raise GresealaCursant(
                    f"Pentru {caz.descriere()}, ai întors {numar_precis(valoare)}, dar trebuia 1: primul apel "
                    "compilat nu e mai scump decât unul eager, iar varianta compilată nu e mai lentă pe apel, "
                    "deci compilarea s-a amortizat de la primul apel."
                )
        return "Ai găsit apelul de la care compilarea s-a plătit, inclusiv în cazurile limită."

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_3_S)
