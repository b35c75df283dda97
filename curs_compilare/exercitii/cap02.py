"""Verificările exercițiilor din capitolul 02 — „TorchDynamo: gărzi, întreruperi ale grafului,
recompilări”."""

from __future__ import annotations

import torch

from ..inspectie import NumaratorCompilari, categorie_intrerupere, explica, motiv_scurt
from .baza import GresealaCursant, Rezultat, apeleaza, compara_tensori, verificare

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "exercitiul_4",
    "normalizeaza_cu_intreruperi",
    "FUNCTII_DE_PREZIS",
]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: repară trei întreruperi ale grafului
# ---------------------------------------------------------------------------------------------


def normalizeaza_cu_intreruperi(x):
    """Funcția de reparat: calculează corect, dar are trei întreruperi ale grafului."""
    media = x.mean()
    print("media:", media)  # 1: print
    if media.item() > 0:  # 2: .item() și o ramificare după valoarea unui tensor
        x = x - media
    else:
        x = x + 1.0
    maxim = max(x.abs().flatten().tolist())  # 3: tensor → listă Python
    return x / maxim


def _normalizeaza_referinta(x):
    media = x.mean()
    x = torch.where(media > 0, x - media, x + 1.0)
    return x / x.abs().max()


def _intrari_exercitiul_1():
    generator = torch.Generator().manual_seed(1)
    pozitiv = torch.randn(6, 5, generator=generator) + 2.0
    negativ = torch.randn(6, 5, generator=generator) - 2.0
    amestecat = torch.randn(4, 7, generator=generator)
    return [("un tensor cu media pozitivă", pozitiv), ("un tensor cu media negativă", negativ),
            ("un tensor 4 × 7", amestecat)]


def _e_dezactivare(text: str) -> bool:
    return "disable" in text


def exercitiul_1(normalizeaza_fara_intreruperi) -> Rezultat:
    """Verifică o variantă fără întreruperi: se compilează cu `fullgraph=True` și dă aceleași
    rezultate ca originalul, pe ambele ramuri. Respinge `torch.compiler.disable`."""

    def corp():
        intrari = _intrari_exercitiul_1()
        # 1. Întâi corectitudinea, în modul eager.
        for descriere, x in intrari:
            compara_tensori(
                apeleaza(normalizeaza_fara_intreruperi, x.clone()), _normalizeaza_referinta(x), f"eager, {descriere}"
            )
        # 2. Apoi un singur graf, fără întreruperi.
        torch._dynamo.reset()
        numarator = NumaratorCompilari()
        compilata = torch.compile(normalizeaza_fara_intreruperi, fullgraph=True, backend=numarator)
        try:
            for descriere, x in intrari:
                try:
                    obtinut = compilata(x.clone())
                except Exception as eroare:
                    text = str(eroare)
                    if _e_dezactivare(text):
                        raise GresealaCursant(
                            "Ai ascuns o întrerupere cu `torch.compiler.disable`: codul exclus tot întrerupe "
                            "graful (Dynamo doar nu mai încearcă să-l urmărească). Exercițiul cere să "
                            "elimini întreruperile, rescriind liniile problematice cu operații pe tensori."
                        ) from None
                    raise GresealaCursant(
                        f"Cu `fullgraph=True`, Dynamo tot se oprește la o întrerupere ({categorie_intrerupere(text)}). "
                        f"Mesajul lui: „{motiv_scurt(text)}”. Caută linia care iese din lumea tensorilor: "
                        "print, .item(), un if după valoarea unui tensor, .tolist()."
                    ) from None
                compara_tensori(obtinut, _normalizeaza_referinta(x), f"compilat, {descriere}")
        finally:
            torch._dynamo.reset()
        if numarator.compilari == 0:
            raise GresealaCursant(
                "Dynamo n-a capturat niciun graf: funcția ta e exclusă de la compilare (de exemplu cu "
                "`@torch.compiler.disable`). Exercițiul cere exact un graf, nu zero."
            )
        return (
            "Un singur graf, aceleași rezultate ca originalul pe ambele ramuri. `torch.where` a "
            "înlocuit ramificarea, iar maximul a rămas tensor."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: prezice grafurile și întreruperile
# ---------------------------------------------------------------------------------------------


def functia_A(x):
    y = torch.sin(x)
    y = y * 2
    return torch.cos(y)


def functia_B(x):
    y = torch.sin(x)
    print("pasul 1")
    z = torch.cos(y)
    print("pasul 2")
    return z + 1


def functia_C(x):
    for _ in range(3):
        x = torch.sin(x)
    if x.sum() > 0:
        return torch.cos(x)
    return torch.exp(x)


@torch.compiler.disable
def _jurnalizeaza(t):
    return t


def functia_D(x):
    y = torch.sin(x)
    if x.shape[0] > 2:
        y = y * 2
    y = _jurnalizeaza(y)
    return torch.cos(y)


FUNCTII_DE_PREZIS = {"A": functia_A, "B": functia_B, "C": functia_C, "D": functia_D}

_INDICII_2 = {
    "A": "Toate liniile sunt operații pe tensori: nimic nu-l oprește pe Dynamo.",
    "B": "Fiecare print întrerupe graful; după el, Dynamo începe un graf nou cu ce urmează.",
    "C": "Bucla `range(3)` e pur Python: Dynamo o desfășoară. Dar `if x.sum() > 0` depinde de valoarea "
    "unui tensor, pe care Dynamo n-o știe când construiește graful.",
    "D": "Un if după formă (`x.shape[0]`) nu întrerupe graful: forma e cunoscută, iar Dynamo pune o gardă "
    "pe ea. Funcția exclusă cu `torch.compiler.disable`, în schimb, întrerupe.",
}


def _pereche(valoare, nume):
    if not isinstance(valoare, (tuple, list)) or len(valoare) != 2:
        raise GresealaCursant(f"Pentru funcția {nume} trebuia o pereche (grafuri, întreruperi), de exemplu (1, 0).")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in valoare):
        raise GresealaCursant(f"Pentru funcția {nume}, ambele numere trebuie să fie întregi: ai scris {valoare!r}.")
    return tuple(valoare)


def exercitiul_2(predictii) -> Rezultat:
    """Compară predicțiile {nume: (grafuri, întreruperi)} cu ce găsește `torch._dynamo.explain`."""

    def corp():
        if not isinstance(predictii, dict):
            raise GresealaCursant("Trebuia un dicționar {'A': (grafuri, întreruperi), ...}.")
        lipsa = [n for n in FUNCTII_DE_PREZIS if n not in predictii]
        if lipsa:
            raise GresealaCursant(f"Lipsesc predicțiile pentru funcțiile: {', '.join(lipsa)}.")
        x = torch.randn(4, 3)
        gresite = []
        for nume, functie in FUNCTII_DE_PREZIS.items():
            prezis = _pereche(predictii[nume], nume)
            adevar = explica(functie, x)
            real = (adevar.numar_grafuri, adevar.numar_intreruperi)
            if prezis != real:
                gresite.append(f"{nume}: ai prezis {prezis}. {_INDICII_2[nume]}")
        torch._dynamo.reset()
        if gresite:
            raise GresealaCursant(
                "Predicțiile nu se potrivesc cu ce face Dynamo pentru:\n" + "\n".join(gresite)
            )
        return "Ai citit codul ca Dynamo: știi ce linii întrerup graful și care nu."

    return verificare("Exercițiul 2", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: loturi de mărimi diferite, o singură compilare
# ---------------------------------------------------------------------------------------------

MARIMI_LOT = (4, 8, 12, 16, 24)


def _strat_de_test(x):
    return (torch.sin(x) * 2 + x).sum(dim=-1)


def exercitiul_3(compileaza_pentru_loturi) -> Rezultat:
    """Verifică `compileaza_pentru_loturi(functie, backend)`: funcția întoarsă trebuie să dea
    rezultatele corecte pentru loturi de mărimi diferite, cu o singură compilare."""

    def corp():
        torch._dynamo.reset()
        numarator = NumaratorCompilari()
        try:
            compilata = apeleaza(compileaza_pentru_loturi, _strat_de_test, numarator)
            if not callable(compilata):
                raise GresealaCursant("`compileaza_pentru_loturi` trebuie să întoarcă funcția compilată.")
            for marime in MARIMI_LOT:
                x = torch.randn(marime, 5)
                compara_tensori(apeleaza(compilata, x), _strat_de_test(x), f"lot de {marime}")
        finally:
            torch._dynamo.reset()
        n = numarator.compilari
        if n == 0:
            raise GresealaCursant(
                "N-a trecut nicio compilare prin backend-ul primit: dă-l lui `torch.compile(functie, "
                "backend=backend, ...)` și nu exclude funcția de la compilare."
            )
        if n == 2:
            raise GresealaCursant(
                f"Au fost 2 compilări pentru loturile {list(MARIMI_LOT)}. Așa se comportă setarea implicită: "
                "prima compilare e pentru forma exactă, iar la a doua formă Dynamo recompilează cu forme "
                "dinamice. Cere formele dinamice de la început: `dynamic=True` sau "
                "`torch._dynamo.mark_dynamic(x, 0)` înainte de primul apel."
            )
        if n > 2:
            raise GresealaCursant(
                f"Au fost {n} compilări, una pentru fiecare mărime de lot: cu `dynamic=False` fiecare formă "
                "nouă încalcă o gardă. Cere forme dinamice pentru prima dimensiune."
            )
        return (
            "O singură compilare pentru toate mărimile de lot: graful e valabil pentru orice valoare de cel "
            "puțin 2 a primei dimensiuni (0 și 1 rămân specializate: un lot de 1 ar recompila)."
        )

    return verificare("Exercițiul 3", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 4: detectează o recompilare
# ---------------------------------------------------------------------------------------------


def _dublare(t):
    return t * 2 + 1


def _cazuri_exercitiul_4():
    f32, f64 = torch.float32, torch.float64
    return [
        ("aceeași formă de trei ori", {}, [((8,), f32)] * 3),
        ("forme diferite, dynamic=False", {"dynamic": False}, [((8,), f32), ((16,), f32)]),
        ("forme diferite, dynamic=True", {"dynamic": True}, [((8,), f32), ((16,), f32), ((32,), f32)]),
        ("forme diferite, setarea implicită", {}, [((8,), f32), ((16,), f32)]),
        ("alt tip de date, aceeași formă", {"dynamic": True}, [((8,), f32), ((8,), f64)]),
    ]


def _recompileaza_de_fapt(optiuni, tensori) -> bool:
    torch._dynamo.reset()
    numarator = NumaratorCompilari()
    compilata = torch.compile(_dublare, backend=numarator, **optiuni)
    for t in tensori:
        compilata(t)
    torch._dynamo.reset()
    return numarator.compilari > 1


def _atitudinea_a_ramas_activa() -> bool:
    torch._dynamo.reset()
    proba = torch.compile(lambda t: t + 1, backend="eager")
    try:
        proba(torch.randn(3))
        proba(torch.randn(3, 2))
    except RuntimeError:
        return True
    finally:
        torch._dynamo.reset()
    return False


def exercitiul_4(are_recompilare) -> Rezultat:
    """Verifică `are_recompilare(functie_compilata, intrari)`: adevărat dacă, după primul apel,
    vreunul dintre apelurile următoare recompilează funcția."""

    def corp():
        for descriere, optiuni, forme in _cazuri_exercitiul_4():
            tensori = [torch.randn(forma, dtype=tip) for forma, tip in forme]
            asteptat = _recompileaza_de_fapt(optiuni, tensori)
            torch._dynamo.reset()
            compilata = torch.compile(_dublare, backend="eager", **optiuni)
            try:
                raspuns = apeleaza(are_recompilare, compilata, [t.clone() for t in tensori])
            except GresealaCursant as greseala:
                if "recompile" in str(greseala).lower():
                    raise GresealaCursant(
                        f"Pentru cazul „{descriere}” ai detectat recompilarea, dar excepția a scăpat din funcția ta. "
                        "Prinde-o (`try` / `except RuntimeError`) și întoarce True."
                    ) from None
                raise
            finally:
                if hasattr(torch.compiler, "set_stance"):
                    atitudine_lasata = _atitudinea_a_ramas_activa()
                    torch.compiler.set_stance("default")
                else:
                    atitudine_lasata = False
            if atitudine_lasata:
                raise GresealaCursant(
                    "Funcția ta lasă activă atitudinea „fail_on_recompile” și după ce se termină: orice "
                    "recompilare din restul notebook-ului ar da eroare. Folosește "
                    "`with torch.compiler.set_stance(\"fail_on_recompile\"):`, ca atitudinea să se încheie odată cu blocul."
                )
            if not isinstance(raspuns, bool):
                raise GresealaCursant(
                    f"Pentru cazul „{descriere}” ai întors {type(raspuns).__name__}; trebuia True sau False."
                )
            if raspuns != asteptat:
                if asteptat:
                    raise GresealaCursant(
                        f"În cazul „{descriere}” funcția se recompilează, dar ai răspuns False. Ai apelat "
                        "funcția compilată cu toate intrările, după prima, sub o atitudine care semnalează "
                        "recompilările?"
                    )
                raise GresealaCursant(
                    f"În cazul „{descriere}” nu are loc nicio recompilare, dar ai răspuns True. Primul apel "
                    "compilează întotdeauna: el nu contează, așa că fă-l în afara blocului `fail_on_recompile`."
                )
        return (
            "Detectezi recompilările fără să citești jurnale: exact ce-ți trebuie într-un test care "
            "protejează un model de recompilări neașteptate."
        )

    return verificare("Exercițiul 4", corp)
