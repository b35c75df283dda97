"""Verificările exercițiilor din capitolul 01 — „Primul torch.compile”."""

from __future__ import annotations

import torch

from ..inspectie import BackendInregistrare, numara_operatii
from .baza import NESCRIS, GresealaCursant, Rezultat, compara_tensori, verificare

__all__ = ["exercitiul_1", "exercitiul_2", "MODURI_PERMISE"]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: un backend care numără operațiile fiecărui graf
# ---------------------------------------------------------------------------------------------


def _functie_cu_o_intrerupere(x):
    y = torch.sin(x) * 2 + 1
    torch._dynamo.graph_break()
    return torch.relu(y).sum(dim=-1)


class _ModulMic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.liniar = torch.nn.Linear(6, 4)

    def forward(self, x):
        return torch.nn.functional.gelu(self.liniar(x)) + x[..., :4]


def _graf_si_numere(functie, x):
    """Câte operații are fiecare graf al funcției (cu backend-ul de referință al verificării)."""
    torch._dynamo.reset()
    referinta = BackendInregistrare()
    torch.compile(functie, backend=referinta)(x)
    torch._dynamo.reset()
    return referinta.operatii_pe_graf(), [len(g.graph.nodes) for g in referinta.grafuri]


def exercitiul_1(backend_numarator, operatii_vazute) -> Rezultat:
    """Verifică un backend `backend_numarator(gm, exemple_intrari)` care adaugă în lista
    `operatii_vazute` numărul de operații al fiecărui graf primit și întoarce o funcție care
    calculează la fel ca graful."""

    def corp():
        if not callable(backend_numarator):
            raise GresealaCursant("`backend_numarator` trebuie să fie o funcție (gm, exemple_intrari).")
        if not isinstance(operatii_vazute, list):
            raise GresealaCursant("`operatii_vazute` trebuie să fie lista în care backend-ul adaugă numerele.")
        torch.manual_seed(0)
        modul = _ModulMic()
        cazuri = [
            ("funcția cu o întrerupere", _functie_cu_o_intrerupere, torch.randn(3, 5)),
            ("modulul mic", modul, torch.randn(2, 6)),
        ]
        for nume, functie, x in cazuri:
            asteptat_operatii, asteptat_noduri = _graf_si_numere(functie, x)
            operatii_vazute.clear()
            try:
                obtinut = torch.compile(functie, backend=backend_numarator)(x)
            except Exception as eroare:  # Dynamo învelește erorile backend-ului
                text = str(eroare)
                if "NotImplementedError" in text:
                    raise GresealaCursant(NESCRIS) from None
                if "did not return callable" in text or ("NoneType" in text and "callable" in text):
                    raise GresealaCursant(
                        "Backend-ul tău întoarce None. Un backend trebuie să întoarcă o funcție care rulează "
                        "graful, de exemplu `return gm.forward`."
                    ) from None
                linii = [l.strip() for l in text.splitlines() if l.strip() and "raised:" not in l]
                raise GresealaCursant(
                    f"Compilarea cu backend-ul tău a eșuat ({nume}): {linii[0] if linii else type(eroare).__name__}"
                ) from None
            finally:
                torch._dynamo.reset()
            with torch.no_grad():
                compara_tensori(obtinut, functie(x), f"{nume}, față de modul eager")
            vazute = list(operatii_vazute)
            if not vazute:
                raise GresealaCursant(
                    "Lista `operatii_vazute` a rămas goală: backend-ul trebuie să adauge în ea "
                    "(`operatii_vazute.append(...)`) numărul de operații al fiecărui graf primit."
                )
            if len(vazute) != len(asteptat_operatii):
                raise GresealaCursant(
                    f"Pentru {nume}, Dynamo produce un număr de grafuri egal cu {len(asteptat_operatii)}, dar lista ta are "
                    f"lungimea {len(vazute)} ({vazute}): adaugă exact un număr pentru fiecare apel al backend-ului."
                )
            if any(isinstance(v, bool) or not isinstance(v, int) for v in vazute):
                raise GresealaCursant(f"Lista trebuie să conțină numere întregi, dar conține {vazute}.")
            if vazute == asteptat_noduri and vazute != asteptat_operatii:
                raise GresealaCursant(
                    f"Ai numărat toate nodurile grafului ({vazute}), inclusiv intrările (`placeholder`) și "
                    f"ieșirea (`output`). Numără doar operațiile: nodurile cu `op` egal cu "
                    f"'call_function', 'call_method' sau 'call_module' (aici: {asteptat_operatii})."
                )
            if vazute != asteptat_operatii:
                raise GresealaCursant(
                    f"Pentru {nume} ai numărat {vazute}, dar numerele corecte de operații sunt {asteptat_operatii}. "
                    "Parcurge `gm.graph.nodes` și numără nodurile cu `op` în "
                    "('call_function', 'call_method', 'call_module')."
                )
        return (
            "Backend-ul tău primește fiecare graf capturat de Dynamo, îi numără operațiile și îl rulează "
            "neschimbat — exact ce trebuie să facă un backend pentru `torch.compile`."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: alege modul potrivit fiecărei situații
# ---------------------------------------------------------------------------------------------

MODURI_PERMISE = ("default", "reduce-overhead", "max-autotune", "fullgraph")

# situație → (alegerea corectă, de ce, indiciu care nu dă răspunsul)
_ASTEPTAT = {
    "a": (
        "reduce-overhead",
        "Un model mic, cu loturi de 1, pe GPU, e limitat de costul lansării sutelor de kernel-uri: "
        "CUDA Graphs (`reduce-overhead`) le capturează o dată și apoi le reia pe toate printr-un singur apel, fără reglare automată.",
        "ce domină timpul când fiecare kernel lucrează doar câteva microsecunde?",
    ),
    "b": (
        "max-autotune",
        "Când antrenezi zile întregi un model mare, dominat de produse de matrice, câteva minute de "
        "reglare automată se amortizează ușor.",
        "cine își permite o compilare lungă și ce poate câștiga din ea la produsele de matrice?",
    ),
    "c": (
        "default",
        "Când rulezi funcția doar de câteva ori, contează compilarea rapidă: modul implicit "
        "compilează cel mai repede.",
        "ce contează mai mult când funcția rulează doar de câteva ori?",
    ),
    "d": (
        "fullgraph",
        "`fullgraph=True` transformă orice întrerupere a grafului într-o eroare: testul pică "
        "imediat ce cineva introduce una.",
        "aici nu vrei viteză, ci o eroare: care opțiune din tabel face asta?",
    ),
}

_CONFUZII = {
    ("a", "max-autotune"): (
        "`max-autotune` activează și el CUDA Graphs, dar adaugă minute de reglare automată, iar "
        "situația cere să scapi de costul lansării fără compilare în plus."
    ),
    ("b", "reduce-overhead"): (
        "`reduce-overhead` elimină costul lansării, dar un model mare cu produse de matrice mari "
        "nu e limitat de lansări, ci de calcul."
    ),
}


def exercitiul_2(alegeri) -> Rezultat:
    """Verifică un dicționar {situație: alegere} pentru situațiile a–d din notebook."""

    def corp():
        if not isinstance(alegeri, dict):
            raise GresealaCursant(
                f"Trebuia un dicționar, de exemplu {{'a': 'default', ...}}, dar am primit {type(alegeri).__name__}."
            )
        lipsa = [k for k in _ASTEPTAT if k not in alegeri]
        if lipsa:
            raise GresealaCursant(f"Lipsesc alegeri pentru situațiile: {', '.join(lipsa)}.")
        gresite = []
        for situatie, (corect, _, indiciu) in _ASTEPTAT.items():
            ales = alegeri[situatie]
            if ales not in MODURI_PERMISE:
                raise GresealaCursant(
                    f"Pentru situația {situatie} ai scris {ales!r}; alege una dintre: {', '.join(MODURI_PERMISE)}."
                )
            if ales != corect:
                motiv = _CONFUZII.get((situatie, ales), f"Indiciu: {indiciu}")
                gresite.append(f"situația {situatie}: nu {ales!r}. {motiv}")
        if gresite:
            raise GresealaCursant("Mai ai de lucru la " + "\n".join(gresite))
        return " ".join(f"({k}) {e}" for k, (_, e, _) in _ASTEPTAT.items())

    return verificare("Exercițiul 2", corp)
