"""cardfile"""
